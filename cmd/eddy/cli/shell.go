package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"

	"github.com/peterh/liner"
	"github.com/spf13/cobra"

	"github.com/eddysql/eddy/sql"
)

// The shell's prompts: the first line of a statement, and the next ones.
const (
	promptFirst = "eddy> "
	promptMore  = "   ..> "
)

// lineReader reads the shell's input lines: liner on a terminal, a fake in
// tests. Prompt returns liner.ErrPromptAborted on Ctrl-C and io.EOF on
// Ctrl-D.
type lineReader interface {
	Prompt(prompt string) (string, error)
	AppendHistory(item string)
}

// shell is an interactive session: it reads lines until a statement is
// complete, runs it, and handles meta commands.
type shell struct {
	r     *runner
	lines lineReader
	in    io.Reader // read without line editing if liner cannot write to the terminal
	out   io.Writer
	// interrupts delivers Ctrl-C while a statement runs; it cancels that
	// statement only.
	interrupts <-chan os.Signal
	buf        string // the unfinished statement
	// hist keeps the statements and meta commands (shell_history.go);
	// nil: none. cat answers \d and feeds comp, the tab completion.
	hist *history
	cat  *sqlCatalog
	comp *completer
}

// shell is the `shell` command and the default one. Without a terminal it
// runs standard input as a script.
func (a *app) shell(cmd *cobra.Command, _ []string) error {
	ctx := cmd.Context()
	if !a.io.Terminal {
		return a.runPiped(ctx)
	}
	sess, closeFn, err := a.open(ctx, true)
	if err != nil {
		return err
	}
	ln := liner.NewLiner()
	ln.SetCtrlCAborts(true)
	ln.SetMultiLineMode(true)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	sh := newShell(&runner{sess: sess, p: a.newPrinter()}, ln, a.io.In, a.out)
	sh.interrupts = sigs
	sh.setTerminal(a.io.Out, a.io.Err)
	sh.openHistory(ln, a.io.Err)
	ln.SetTabCompletionStyle(liner.TabPrints)
	ln.SetWordCompleter(func(line string, pos int) (string, []string, string) {
		return sh.comp.complete(sh.buf, line, pos)
	})
	fmt.Fprintf(a.out, "eddy %s. Type \\help for help, \\q to quit.\n", versionString())
	if a.conn.addr != "" {
		fmt.Fprintf(a.out, "Connected to eddy at %s.\n", a.conn.addr)
	}
	err = sh.loop(ctx)
	signal.Stop(sigs)
	ln.Close()
	if cerr := closeFn(); cerr != nil && err == nil {
		err = cerr
	}
	return err
}

// plainLines reads lines without editing or prompts.
type plainLines struct{ r *bufio.Reader }

func (p *plainLines) Prompt(string) (string, error) {
	line, err := p.r.ReadString('\n')
	if err == io.EOF && line != "" {
		err = nil
	}
	return strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r"), err
}

func (p *plainLines) AppendHistory(string) {}

// loop reads and runs input until \q, Ctrl-D or ctx ends. Statement errors
// are printed and the session goes on.
func (sh *shell) loop(ctx context.Context) error {
	for ctx.Err() == nil {
		prompt := promptFirst
		if sh.buf != "" {
			prompt = promptMore
		}
		line, err := sh.lines.Prompt(prompt)
		switch {
		case errors.Is(err, liner.ErrPromptAborted):
			sh.buf = "" // Ctrl-C while typing clears the input
			continue
		case errors.Is(err, io.EOF):
			fmt.Fprintln(sh.out)
			return nil
		case errors.Is(err, liner.ErrNotTerminalOutput) && sh.in != nil:
			// Typing at a terminal with the output redirected: read
			// plain lines, without prompts.
			sh.lines, sh.in = &plainLines{r: bufio.NewReader(sh.in)}, nil
			continue
		case err != nil:
			return err
		}
		sh.printNotices() // of the statements tab completion ran
		if t := strings.TrimSpace(line); strings.HasPrefix(t, `\`) || (sh.buf == "" && (t == "quit" || t == "exit")) {
			sh.remember(t)
			if sh.meta(ctx, t) {
				return nil
			}
			continue
		}
		sh.buf += line + "\n"
		pieces, rest := sql.Split(sh.buf)
		for _, pc := range pieces {
			sh.remember(statementEntry(pc.Text))
			sh.runStatement(ctx, pc)
			sh.comp.invalidate()
		}
		sh.buf = rest
	}
	return nil
}

// runStatement runs one statement with a context that Ctrl-C cancels.
func (sh *shell) runStatement(ctx context.Context, pc sql.Piece) {
	for drained := false; !drained; { // forget interrupts from before the statement
		select {
		case <-sh.interrupts:
		default:
			drained = true
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		select {
		case <-sh.interrupts:
			cancel()
		case <-done:
		}
	}()
	sh.r.runStatement(ctx, "", pc.Text, pc.Start) // errors are printed; the session goes on
	close(done)
	wg.Wait()
}

// meta runs a meta command (a line starting with a backslash, or quit and
// exit on their own) and reports whether the shell should quit.
func (sh *shell) meta(ctx context.Context, line string) bool {
	f := strings.Fields(line)
	cmd, args := f[0], f[1:]
	p := sh.r.p
	switch cmd {
	case `\q`, `\quit`, "quit", "exit":
		return true
	case `\help`, `\h`, `\?`:
		io.WriteString(sh.out, helpText)
	case `\timing`:
		on, ok := onOff(args, p.timing)
		if !ok {
			p.printError(errors.New(`usage: \timing [on|off]`), "")
			break
		}
		p.timing = on
		fmt.Fprintf(sh.out, "Timing is %s.\n", map[bool]string{true: "on", false: "off"}[on])
	case `\format`:
		if len(args) == 0 {
			fmt.Fprintf(sh.out, "Format is %s.\n", formatName(p.format))
			break
		}
		f, err := parseFormat(args[0])
		if err != nil || len(args) > 1 {
			p.printError(errors.New(`usage: \format [table|csv|json]`), "")
			break
		}
		p.format = f
		fmt.Fprintf(sh.out, "Format is %s.\n", formatName(f))
	default:
		if !sh.displayMeta(ctx, cmd, args, strings.TrimPrefix(line, cmd)) {
			p.printError(fmt.Errorf(`unknown command %s: type \help for help`, cmd), "")
		}
	}
	return false
}

// onOff parses the argument of a toggle: none flips cur.
func onOff(args []string, cur bool) (bool, bool) {
	if len(args) == 0 {
		return !cur, true
	}
	if len(args) == 1 {
		switch strings.ToLower(args[0]) {
		case "on":
			return true, true
		case "off":
			return false, true
		}
	}
	return false, false
}

// formatName returns the --format name of f.
func formatName(f outputFormat) string {
	for name, v := range formatNames {
		if v == f {
			return name
		}
	}
	return "table"
}

const helpText = `Statements (end each with ;):
  CREATE STREAM [IF NOT EXISTS] s (col TYPE, ..., [WATERMARK FOR col AS col - INTERVAL '4' SECOND]) [WITH (...)]
  CREATE STREAM s AS SELECT ...                derived stream
  CREATE TABLE [IF NOT EXISTS] t (col TYPE, ..., PRIMARY KEY (col)) [WITH (...)]
  CREATE MATERIALIZED VIEW [IF NOT EXISTS] v AS SELECT ... [EMIT ON WINDOW CLOSE]
  CREATE SINK k FROM v WITH (...)  |  CREATE SINK k AS SELECT ... WITH (...)
  INSERT INTO s VALUES (...), ...  |  INSERT INTO s SELECT ...
  SELECT ... FROM v [WHERE ...] [ORDER BY ...] [LIMIT n]   pull query: a snapshot
  SELECT ... EMIT CHANGES [LIMIT n]            push query: changes until LIMIT or Ctrl-C
  FLUSH                                        wait until every ingested row is reflected
  EXPLAIN [LOGICAL | VERBOSE] statement  |  EXPLAIN ANALYZE name
  SHOW STREAMS | TABLES | MATERIALIZED VIEWS | SINKS | QUERIES | CHECKPOINTS | FUNCTIONS
  SHOW CREATE [STREAM | TABLE | MATERIALIZED VIEW | SINK] name   the statement that recreates it
  DESCRIBE name                                columns, watermark, connector and options
  DROP STREAM | TABLE | MATERIALIZED VIEW | SINK [IF EXISTS] name
  SET setting = value
Meta commands:
  \help                     this help (also \h, \?)
  \timing [on|off]          show elapsed times
  \format [table|csv|json]  how results are printed
  \x [on|off|auto]          expanded display: a block per row (auto: when the table is too wide)
  \pager [on|off]           page results longer or wider than the terminal ($PAGER, or less -FRSX)
  \d                        list every stream, table, materialized view and sink
  \d NAME                   describe one: columns, keys, watermark, connector, options, query
  \q                        quit (also \quit, quit, exit, Ctrl-D)
Tab completes keywords, names of objects, columns, functions and settings.
History (up arrow) holds whole statements, kept in ~/.eddy_history.
Ctrl-C clears the current input, or cancels the running statement.
`
