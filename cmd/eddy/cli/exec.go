package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"time"

	"github.com/spf13/cobra"

	"github.com/eddysql/eddy/exec/engine"
	"github.com/eddysql/eddy/sql"
)

// session runs parsed statements: an *engine.Session, or a fake in tests.
type session interface {
	Execute(ctx context.Context, stmt sql.Stmt) (*engine.Result, error)
}

// runner runs statements on a session and prints what they return.
type runner struct {
	sess session
	p    *printer
}

// runStatement parses the statement text, which starts at pos in the
// script called name, runs it and prints its result. An error is printed
// (with name and line, in scripts) and errReported returned.
func (r *runner) runStatement(ctx context.Context, name, text string, pos sql.Pos) error {
	start := time.Now()
	stmt, err := sql.ParseOne(text, pos)
	var res *engine.Result
	if err == nil {
		withProgress(ctx, r.p.progress, progressOf(r.sess), func() { res, err = r.sess.Execute(ctx, stmt) })
	}
	if err == nil {
		err = r.p.printResult(ctx, res, start)
	}
	if err == nil {
		return nil
	}
	where := ""
	if name != "" {
		line := pos.Line
		var pe sql.PosError
		if errors.As(err, &pe) {
			line = pe.Position().Line
		}
		where = fmt.Sprintf("%s:%d", name, line)
	}
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		err = errCanceled
	}
	r.p.printError(err, where)
	return errReported
}

// runScript runs the statements of text in order and stops at the first
// that fails. Text after the last ';' is a statement too.
func (r *runner) runScript(ctx context.Context, name, text string) error {
	for _, pc := range sql.Statements(text) {
		if err := r.runStatement(ctx, name, pc.Text, pc.Start); err != nil {
			return err
		}
	}
	return nil
}

// newPrinter returns a printer for the global flags, writing results to
// the app's output.
func (a *app) newPrinter() *printer {
	f, _ := parseFormat(a.opts.format) // checked by checkOptions
	p := &printer{out: a.out, errOut: a.io.Err, format: f, timing: a.opts.timing}
	if isTerminal(a.io.Err) {
		p.progress = a.io.Err
	}
	return p
}

// script is one -f FILE or -e SQL of `eddy exec`, in command-line order.
type script struct {
	file bool
	arg  string
}

// scriptFlag is a repeatable flag that appends to a list shared by -f and
// -e, so their relative order is kept.
type scriptFlag struct {
	file bool
	list *[]script
}

func (f *scriptFlag) String() string { return "" }
func (f *scriptFlag) Set(v string) error {
	*f.list = append(*f.list, script{file: f.file, arg: v})
	return nil
}
func (f *scriptFlag) Type() string {
	if f.file {
		return "file"
	}
	return "sql"
}

// execCommand is `eddy exec`.
func (a *app) execCommand() *cobra.Command {
	var scripts []script
	cmd := &cobra.Command{
		Use:   "exec (-f FILE | -e SQL)...",
		Short: "Run SQL scripts and statements, stopping at the first error",
		Long: `Run SQL from files (-f, "-" for standard input) and from the command line
(-e), in the order given. Execution stops at the first failing statement,
which is reported with its line, and eddy exits with status 1.`,
		Args: cobra.NoArgs,
		RunE: a.run(func(cmd *cobra.Command, _ []string) error {
			if len(scripts) == 0 {
				return usagef("exec needs at least one -f FILE or -e SQL")
			}
			return a.execScripts(cmd.Context(), scripts)
		}),
	}
	cmd.Flags().VarP(&scriptFlag{file: true, list: &scripts}, "file", "f", "run the SQL script in `FILE` (repeatable; - reads standard input)")
	cmd.Flags().VarP(&scriptFlag{list: &scripts}, "execute", "e", "run the `SQL` statements given (repeatable)")
	a.addConnectFlags(cmd)
	return cmd
}

// execScripts reads every script, then runs them in order on one engine.
func (a *app) execScripts(ctx context.Context, scripts []script) error {
	names := make([]string, len(scripts))
	texts := make([]string, len(scripts))
	nExec := 0
	for i, s := range scripts {
		if !s.file {
			nExec++
			names[i], texts[i] = fmt.Sprintf("-e #%d", nExec), s.arg
			continue
		}
		var data []byte
		var err error
		if s.arg == "-" {
			names[i] = "<stdin>"
			data, err = io.ReadAll(a.io.In)
		} else {
			names[i] = s.arg
			data, err = os.ReadFile(s.arg)
		}
		if err != nil {
			return err
		}
		texts[i] = string(data)
	}
	return a.withEngine(ctx, func(ctx context.Context, sess session) error {
		r := &runner{sess: sess, p: a.newPrinter()}
		for i := range scripts {
			if err := r.runScript(ctx, names[i], texts[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// runPiped runs standard input as a script: `echo 'SHOW STREAMS;' | eddy`.
func (a *app) runPiped(ctx context.Context) error {
	data, err := io.ReadAll(a.io.In)
	if err != nil {
		return err
	}
	return a.withEngine(ctx, func(ctx context.Context, sess session) error {
		r := &runner{sess: sess, p: a.newPrinter()}
		return r.runScript(ctx, "<stdin>", string(data))
	})
}

// withEngine runs fn with a non-interactive session on a new engine,
// cancelling its context on an interrupt (Ctrl-C).
func (a *app) withEngine(ctx context.Context, fn func(context.Context, session) error) error {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt)
	defer stop()
	sess, closeFn, err := a.open(ctx, false)
	if err != nil {
		return err
	}
	err = fn(ctx, sess)
	if cerr := closeFn(); cerr != nil && err == nil {
		err = cerr
	}
	return err
}
