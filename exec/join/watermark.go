package join

// AbsorbsWatermarks implements WatermarkAbsorber: a regular join's output
// has no event-time order (a match is emitted when its later row arrives),
// so it passes no watermark on. Windowed and lookup joins emit rows in
// their stream's time and pass watermarks on.
func (j *HashJoin) AbsorbsWatermarks() bool { return !j.cfg.Windowed && !j.cfg.Lookup }
