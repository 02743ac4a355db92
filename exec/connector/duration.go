package connector

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseDuration reads the value of a duration option (idle_timeout,
// flush_interval): a Go duration such as '5s', '500ms' or '1m', units
// spelled out ('2 seconds', '1 minute'), or a bare number of
// milliseconds. Negative durations are refused.
func ParseDuration(v string) (time.Duration, error) {
	s := strings.ToLower(strings.TrimSpace(v))
	if ms, err := strconv.ParseInt(s, 10, 64); err == nil && ms >= 0 {
		return time.Duration(ms) * time.Millisecond, nil
	}
	for _, u := range longUnits {
		if strings.HasSuffix(s, u.long) {
			s = strings.TrimSuffix(s, u.long) + u.short
			break
		}
	}
	d, err := time.ParseDuration(strings.ReplaceAll(s, " ", ""))
	if err != nil || d < 0 {
		return 0, fmt.Errorf("invalid duration '%s' (write e.g. '5s', '500ms' or '1m')", v)
	}
	return d, nil
}

// longUnits are the unit names ParseDuration accepts spelled out, plurals
// before singulars so that "seconds" is not read as "second" + "s".
var longUnits = []struct{ long, short string }{
	{"milliseconds", "ms"}, {"millisecond", "ms"}, {"seconds", "s"}, {"second", "s"},
	{"minutes", "m"}, {"minute", "m"}, {"hours", "h"}, {"hour", "h"},
}
