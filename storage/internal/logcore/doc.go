// Package logcore implements storage.Log over a Backend that stores opaque
// entries per stream and sequence number. It owns what both storage
// implementations must do alike: sequence numbering, the published
// high-water mark, Wait, entry framing with a checksum, batch encoding and
// validation on the way back. A backend only stores and finds bytes.
package logcore
