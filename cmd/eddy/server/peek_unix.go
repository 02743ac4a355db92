//go:build unix

package server

import (
	"errors"
	"io"
	"syscall"
)

// errClientSent is clientGone's answer when the client has sent bytes.
var errClientSent = errors.New("the client sent data during a statement")

// clientGone checks, without blocking and without consuming anything,
// whether the client has closed its side of the connection (io.EOF) or
// sent something (errClientSent), or the socket failed; nil means none
// of these. It peeks at the socket (MSG_PEEK), beneath vitess's buffered
// reader and TLS: vitess's own ConnCheck reads a byte, which, when the
// client has already sent its next command (a result flushed by vitess's
// timer before the statement's goroutine has returned), takes the first
// byte of that command away from vitess and desynchronizes the
// connection.
func (c *clientConn) clientGone() error {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return err
	}
	var n int
	var buf [1]byte
	var rerr error
	err = rc.Read(func(fd uintptr) bool {
		n, _, rerr = syscall.Recvfrom(int(fd), buf[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
		return true // never wait: this is a check
	})
	switch {
	case err != nil:
		return err
	case rerr == syscall.EAGAIN || rerr == syscall.EWOULDBLOCK:
		return nil
	case rerr != nil:
		return rerr
	case n == 0:
		return io.EOF
	}
	return errClientSent
}
