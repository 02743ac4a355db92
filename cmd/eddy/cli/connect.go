package cli

import (
	"context"
	"os"

	"github.com/spf13/cobra"

	"github.com/eddysql/eddy/cmd/eddy/client"
)

// passwordEnv is the environment variable eddy serve and --connect read
// the password from when --password is not given (a flag's value is
// visible to every user of the machine in the process list).
const passwordEnv = "EDDY_PASSWORD"

// connectOptions are the flags with which the shell and exec run their
// statements on an eddy server (eddy serve) instead of an engine of their
// own on the data directory.
type connectOptions struct {
	addr     string // --connect HOST:PORT; "" runs the engine in this process
	user     string
	password string
	tls      bool
	tlsCA    string
}

// connectFlags are the names of the flags addConnectFlags adds that only
// mean something with --connect.
var connectFlags = []string{"user", "password", "tls", "tls-ca"}

// engineFlags are the global flags that configure the engine this process
// opens, which --connect does not: the server's engine runs the statements.
var engineFlags = []string{"file-root", "parallelism", "buffer-memory", "memory-limit", "state-memory-limit", "checkpoint-interval", "autoscale", "watermark-alignment"}

// addConnectFlags adds --connect and its login flags to a command that
// runs statements: the shell (and the root command, which runs it) and
// exec.
func (a *app) addConnectFlags(cmd *cobra.Command) {
	fs := cmd.Flags()
	fs.StringVar(&a.conn.addr, "connect", "", "run the statements on the eddy server at `HOST:PORT` (eddy serve) over the MySQL protocol, instead of opening the data directory")
	fs.StringVar(&a.conn.user, "user", "root", "with --connect: the user to log in as")
	fs.StringVar(&a.conn.password, "password", "", "with --connect: the password to log in with (default: $"+passwordEnv+")")
	fs.BoolVar(&a.conn.tls, "tls", false, "with --connect: encrypt the connection, and verify the server's certificate and name")
	fs.StringVar(&a.conn.tlsCA, "tls-ca", "", "with --connect: verify the server's certificate against the CA certificates in `FILE` (implies --tls)")
}

// preRun checks the global flags and those of --connect before any
// command runs.
func (a *app) preRun(cmd *cobra.Command, _ []string) error {
	if err := a.checkOptions(); err != nil {
		return err
	}
	return a.checkConnect(cmd)
}

// checkConnect validates the --connect flags of cmd and reads the password
// from the environment when --password is not given.
func (a *app) checkConnect(cmd *cobra.Command) error {
	if cmd.Flags().Lookup("connect") == nil {
		return nil // a command without --connect (serve has a --password of its own)
	}
	changed := func(name string) bool {
		f := cmd.Flags().Lookup(name)
		return f != nil && f.Changed
	}
	if a.conn.addr == "" {
		for _, name := range connectFlags {
			if changed(name) {
				return usagef("--%s needs --connect", name)
			}
		}
		return nil
	}
	for _, name := range engineFlags {
		if changed(name) {
			return usagef("--%s configures an engine in this process, and --connect uses the server's (SET parallelism, SET checkpoint_interval and SET state_ttl change a session's settings)", name)
		}
	}
	if !changed("password") {
		a.conn.password = os.Getenv(passwordEnv)
	}
	return nil
}

// open opens the session that the shell and exec run statements on: a
// connection to the server with --connect, else an engine on the data
// directory (openSession).
func (a *app) open(ctx context.Context, interactive bool) (session, func() error, error) {
	if a.conn.addr == "" {
		return a.openSession(ctx, interactive)
	}
	s, err := client.Dial(ctx, client.Config{
		Addr:     a.conn.addr,
		User:     a.conn.user,
		Password: a.conn.password,
		TLS:      a.conn.tls,
		CAFile:   a.conn.tlsCA,
	})
	if err != nil {
		return nil, nil, err
	}
	return s, s.Close, nil
}
