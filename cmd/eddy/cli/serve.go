package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/eddysql/eddy/cluster"
	"github.com/eddysql/eddy/cmd/eddy/server"
	"github.com/eddysql/eddy/cmd/eddy/server/web"
)

// serveFlags are `eddy serve`'s flags.
type serveFlags struct {
	mysqlAddr         string
	httpAddr          string
	user, password    string
	tlsCert, tlsKey   string
	requireTLS        bool
	maxConns          int
	maxConnsPerClient int
	maxStmtsPerClient int
	maxStmtBytes      string // a size, parsed by config
	logLevel          string

	cluster        string // --cluster: the cluster's name ("": none)
	brokers        string
	member         string
	partitions     int
	sessionTimeout time.Duration
}

// serveCommand is `eddy serve`.
func (a *app) serveCommand() *cobra.Command {
	var f serveFlags
	d := server.DefaultLimits()
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the data directory to MySQL clients, many at once",
		Long: `Open the data directory and serve it over the MySQL wire protocol until
SIGINT or SIGTERM: connect with 'mysql -h 127.0.0.1 -P 3307 -u root' or any
MySQL driver. Each connection is a session of its own; a push query (EMIT
CHANGES) streams its changes until its LIMIT, the client disconnects, or
another connection runs KILL QUERY <id>.

Without a password (--password, or the environment variable ` + passwordEnv + `;
the flag wins) any user gets in without one, and only a loopback address
may be served. With one, clients log in as --user with it
(mysql_native_password, or caching_sha2_password over TLS), and any
address may be served. --tls-cert and --tls-key let clients use TLS;
--require-tls refuses those that do not.

The --max-* limits refuse, with MySQL's errors, connections and
statements beyond them; refused ones never affect other sessions.

With --http (default 127.0.0.1:8081; '' turns it off) it also serves
HTTP: a web view of the running queries' dataflows at /, Prometheus
metrics at /metrics, and JSON at /api/catalog, /api/queries and
/api/queries/{name}. The same password rule holds: with a password,
every request needs it (HTTP basic authentication, as --user).

With --cluster NAME and --brokers, the process is a member of a cluster
on Kafka instead of serving a data directory: every process started
with the same name and brokers shares one catalog, kept in Kafka, and
the work of its materialized views, which read Kafka streams. A member
keeps nothing on its disk; one that dies has its work taken over by the
others within --session-timeout, exactly once (docs/cluster.md).`,
		Args: cobra.NoArgs,
		RunE: a.run(func(cmd *cobra.Command, _ []string) error {
			cfg, err := f.config(cmd, a)
			if err != nil {
				return err
			}
			if a.cluster, err = f.clusterConfig(cmd); err != nil {
				return err
			}
			if a.cluster != nil {
				a.cluster.Logger = cfg.Log
				if f := cmd.Flag("checkpoint-interval"); f == nil || !f.Changed {
					// A fragment's output moves on with its checkpoints.
					a.opts.checkpoint = time.Second
				}
			}
			return a.serve(cmd.Context(), cfg, f.httpAddr)
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&f.mysqlAddr, "mysql", "127.0.0.1:3307", "host:port of the MySQL protocol listener (a non-loopback address needs a password)")
	fl.StringVar(&f.httpAddr, "http", "127.0.0.1:8081", "host:port of the HTTP server: the web view, /metrics and /api ('' turns it off; a non-loopback address needs a password)")
	fl.StringVar(&f.user, "user", "root", "the user clients log in as, with the password")
	fl.StringVar(&f.password, "password", "", "the password clients log in with; wins over $"+passwordEnv+", which is safer (a flag shows in ps)")
	fl.StringVar(&f.tlsCert, "tls-cert", "", "PEM certificate (chain) of the server, for clients using TLS (with --tls-key)")
	fl.StringVar(&f.tlsKey, "tls-key", "", "PEM private key of --tls-cert")
	fl.BoolVar(&f.requireTLS, "require-tls", false, "refuse clients that do not use TLS (needs --tls-cert and --tls-key)")
	fl.IntVar(&f.maxConns, "max-connections", d.MaxConnections, "most connections open at once; more are refused (MySQL error 1040)")
	fl.IntVar(&f.maxConnsPerClient, "max-connections-per-client", d.MaxConnectionsPerClient, "most connections open at once from one client address (error 1203)")
	fl.IntVar(&f.maxStmtsPerClient, "max-statements-per-client", d.MaxStatementsPerClient, "most statements the connections of one client address run at once, push queries while they stream (error 1226)")
	fl.StringVar(&f.maxStmtBytes, "max-statement-bytes", "16MiB", "longest statement text accepted (error 1153); a client sending over twice as much at once is disconnected")
	fl.StringVar(&f.cluster, "cluster", "", "join the cluster of this name on --brokers instead of opening the data directory")
	fl.StringVar(&f.brokers, "brokers", "", "with --cluster: the Kafka brokers (host:port, comma-separated)")
	fl.StringVar(&f.member, "member", "", "with --cluster: this member's id, unique in the cluster (default: host name and process id)")
	fl.IntVar(&f.partitions, "cluster-partitions", cluster.DefaultPartitions, "with --cluster: partitions of the topics keyed work moves through, the most members a view's keyed work spreads over (fixed per view)")
	fl.DurationVar(&f.sessionTimeout, "session-timeout", 10*time.Second, "with --cluster: how long a member may be silent before the others take its work over")
	fl.StringVar(&f.logLevel, "log-level", "warn", "what the server logs to stderr: error, warn (refused connections and logins), info (also refused statements and clients breaking the protocol), debug (also connections coming and going)")
	return cmd
}

// clusterConfig returns the cluster membership the flags ask for, or nil.
func (f *serveFlags) clusterConfig(cmd *cobra.Command) (*cluster.Config, error) {
	if f.cluster == "" {
		for _, name := range []string{"brokers", "member", "cluster-partitions", "session-timeout"} {
			if cmd.Flags().Changed(name) {
				return nil, usagef("--%s needs --cluster", name)
			}
		}
		return nil, nil
	}
	switch {
	case f.brokers == "":
		return nil, usagef("--cluster needs --brokers")
	case f.partitions < 1 || f.partitions > 1024:
		return nil, usagef("--cluster-partitions must be from 1 to 1024, got %d", f.partitions)
	case f.sessionTimeout < time.Second:
		return nil, usagef("--session-timeout must be at least 1s, got %s", f.sessionTimeout)
	}
	member := f.member
	if member == "" {
		host, _ := os.Hostname()
		member = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	var brokers []string
	for _, b := range strings.Split(f.brokers, ",") {
		if b = strings.TrimSpace(b); b != "" {
			brokers = append(brokers, b)
		}
	}
	return &cluster.Config{Name: f.cluster, Brokers: brokers, Member: member, Partitions: f.partitions,
		SessionTimeout: f.sessionTimeout}, nil
}

// config checks the flags and returns the server's Config (without its
// engine). Every mistake is a usage error.
func (f *serveFlags) config(cmd *cobra.Command, a *app) (server.Config, error) {
	cfg := server.Config{Addr: f.mysqlAddr, User: f.user, Version: versionString(), RequireTLS: f.requireTLS}
	cfg.Password = os.Getenv(passwordEnv)
	if cmd.Flags().Changed("password") {
		cfg.Password = f.password
	}
	if cfg.Password != "" && cfg.User == "" {
		return cfg, usagef("--user must not be empty")
	}
	switch {
	case (f.tlsCert == "") != (f.tlsKey == ""):
		return cfg, usagef("--tls-cert and --tls-key go together: give both or neither")
	case f.tlsCert != "":
		tlsCfg, err := server.LoadTLS(f.tlsCert, f.tlsKey)
		if err != nil {
			return cfg, usagef("--tls-cert, --tls-key: %v", err)
		}
		cfg.TLS = tlsCfg
	case f.requireTLS:
		return cfg, usagef("--require-tls needs --tls-cert and --tls-key")
	}
	for _, l := range []struct {
		name string
		v    int
		dst  *int
	}{
		{"--max-connections", f.maxConns, &cfg.Limits.MaxConnections},
		{"--max-connections-per-client", f.maxConnsPerClient, &cfg.Limits.MaxConnectionsPerClient},
		{"--max-statements-per-client", f.maxStmtsPerClient, &cfg.Limits.MaxStatementsPerClient},
	} {
		if l.v < 1 {
			return cfg, usagef("%s must be at least 1, got %d", l.name, l.v)
		}
		*l.dst = l.v
	}
	n, err := parseBytes(f.maxStmtBytes)
	if err != nil || n < 1<<10 || n > 1<<30 {
		return cfg, usagef("--max-statement-bytes must be a size from 1KiB to 1GiB such as 16MiB, got %q", f.maxStmtBytes)
	}
	cfg.Limits.MaxStatementBytes = int(n)
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return cfg, usagef("--log-level must be debug, info, warn or error, got %q", f.logLevel)
	}
	cfg.Log = slog.New(slog.NewTextHandler(a.io.Err, &slog.HandlerOptions{Level: level}))
	if err := cfg.Check(); err != nil {
		if errors.Is(err, server.ErrPasswordRequired) {
			return cfg, usagef("--mysql %s is not a loopback address: serving it needs a password (--password or %s)", f.mysqlAddr, passwordEnv)
		}
		return cfg, usagef("--mysql %v", err)
	}
	if f.httpAddr != "" {
		if err := web.CheckAddr(f.httpAddr, cfg.Password); err != nil {
			if errors.Is(err, web.ErrNotLoopback) {
				return cfg, usagef("--http %s is not a loopback address: serving it needs a password (--password or %s)", f.httpAddr, passwordEnv)
			}
			return cfg, usagef("--http %v", err)
		}
	}
	return cfg, nil
}

// serve runs `eddy serve` until ctx ends or a signal stops it: then it
// closes the connections and the engine, which takes its last
// checkpoints, as `eddy exec` does on exit.
func (a *app) serve(ctx context.Context, cfg server.Config, httpAddr string) error {
	if server.CheckAddr(cfg.Addr) != nil && cfg.TLS == nil {
		fmt.Fprintf(a.io.Err, "WARNING: serving %s without TLS: passwords (as scrambles an eavesdropper can attack) and all data travel in clear; give --tls-cert and --tls-key\n", cfg.Addr)
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	eng, err := a.openEngine(ctx, true)
	if err != nil {
		return err
	}
	cfg.Engine = eng
	srv, err := server.Listen(cfg)
	if err != nil {
		if cerr := eng.Close(); cerr != nil {
			err = errors.Join(err, cerr)
		}
		return err
	}
	go srv.Serve()
	var hsrv *web.Server
	if httpAddr != "" {
		hsrv, err = web.Listen(web.Config{Addr: httpAddr, Engine: eng, Version: versionString(),
			User: cfg.User, Password: cfg.Password, Server: srv})
		if err != nil {
			srv.Close()
			if cerr := eng.Close(); cerr != nil {
				err = errors.Join(err, cerr)
			}
			return err
		}
		go hsrv.Serve()
		fmt.Fprintf(a.out, "eddy serving the web view, /metrics and /api on http://%s/\n", hsrv.Addr())
	}
	what := a.opts.dataDir
	if a.cluster != nil {
		what = fmt.Sprintf("cluster %s as member %s", a.cluster.Name, a.cluster.Member)
	}
	fmt.Fprintf(a.out, "eddy serving %s to MySQL clients on %s\n", what, srv.Addr())
	<-ctx.Done()
	if hsrv != nil {
		hsrv.Close()
	}
	srv.Close()
	if err := eng.Close(); err != nil {
		return fmt.Errorf("closing the engine: %w", err)
	}
	fmt.Fprintln(a.out, "eddy stopped")
	return nil
}
