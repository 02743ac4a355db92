package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/eddysql/eddy/cmd/eddy/server"
	"github.com/eddysql/eddy/cmd/eddy/server/web"
)

// serveCommand is `eddy serve`.
func (a *app) serveCommand() *cobra.Command {
	var mysqlAddr, httpAddr string
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the data directory to MySQL clients, many at once",
		Long: `Open the data directory and serve it over the MySQL wire protocol until
SIGINT or SIGTERM: connect with 'mysql -h 127.0.0.1 -P 3307 -u root' (any
user, no password) or any MySQL driver. Each connection is a session of its
own; a push query (EMIT CHANGES) streams its changes until its LIMIT, the
client disconnects, or another connection runs KILL QUERY <id>.

With --http (default 127.0.0.1:8081; '' turns it off) it also serves
HTTP: a web view of the running queries' dataflows at /, Prometheus
metrics at /metrics, and JSON at /api/catalog, /api/queries and
/api/queries/{name}.`,
		Args: cobra.NoArgs,
		RunE: a.run(func(cmd *cobra.Command, _ []string) error {
			return a.serve(cmd.Context(), mysqlAddr, httpAddr)
		}),
	}
	cmd.Flags().StringVar(&mysqlAddr, "mysql", "127.0.0.1:3307", "host:port of the MySQL protocol listener (loopback only, for now)")
	cmd.Flags().StringVar(&httpAddr, "http", "127.0.0.1:8081", "host:port of the HTTP server: the web view, /metrics and /api ('' turns it off; loopback only without a password)")
	return cmd
}

// serve runs `eddy serve` until ctx ends or a signal stops it: then it
// closes the connections and the engine, which takes its last
// checkpoints, as `eddy exec` does on exit.
func (a *app) serve(ctx context.Context, mysqlAddr, httpAddr string) error {
	if err := server.CheckAddr(mysqlAddr); err != nil {
		return usagef("--mysql %v", err)
	}
	if httpAddr != "" {
		if err := web.CheckAddr(httpAddr, ""); err != nil {
			return usagef("--http %v", err)
		}
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	eng, err := a.openEngine(ctx, true)
	if err != nil {
		return err
	}
	srv, err := server.Listen(server.Config{Addr: mysqlAddr, Engine: eng, Version: versionString()})
	if err != nil {
		if cerr := eng.Close(); cerr != nil {
			err = errors.Join(err, cerr)
		}
		return err
	}
	go srv.Serve()
	var hsrv *web.Server
	if httpAddr != "" {
		if hsrv, err = web.Listen(web.Config{Addr: httpAddr, Engine: eng, Version: versionString()}); err != nil {
			srv.Close()
			if cerr := eng.Close(); cerr != nil {
				err = errors.Join(err, cerr)
			}
			return err
		}
		go hsrv.Serve()
		fmt.Fprintf(a.out, "eddy serving the web view, /metrics and /api on http://%s/\n", hsrv.Addr())
	}
	fmt.Fprintf(a.out, "eddy serving %s to MySQL clients on %s\n", a.opts.dataDir, srv.Addr())
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
