package server

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"os/exec"
	"reflect"
	"strings"
	"testing"
)

// withPassword sets the account root / s3cret.
func withPassword(cfg *Config) {
	cfg.User, cfg.Password = "root", "s3cret"
}

// TestPasswordNative logs in with mysql_native_password (the method a
// server without TLS announces): the right user and password get in; a
// wrong password or user is refused with ER_ACCESS_DENIED_ERROR,
// counted and logged at Warn, and a session already open is not
// disturbed.
func TestPasswordNative(t *testing.T) {
	var logs *logCapture
	srv := startServerWith(t, func(cfg *Config) { withPassword(cfg); logs = captureLogs(cfg) })
	good := dbConn(t, openDSN(t, "root:s3cret@tcp("+srv.Addr()+")/"))
	mustExec(t, good, "CREATE STREAM s (a BIGINT)", "INSERT INTO s VALUES (1)")

	for _, tc := range []struct{ dsn, msg string }{
		{"root:wrong@", "Access denied for user 'root'@'127.0.0.1' (using password: YES)"},
		{"root@", "Access denied for user 'root'@'127.0.0.1' (using password: NO)"},
		{"bob:s3cret@", "Access denied for user 'bob'@'127.0.0.1' (using password: YES)"},
	} {
		err := openDSN(t, tc.dsn+"tcp("+srv.Addr()+")/").Ping()
		if me := mysqlError(t, err); me.Number != 1045 || me.Message != tc.msg || string(me.SQLState[:]) != "28000" {
			t.Errorf("%s: error %d %s %q, want 1045 28000 %q", tc.dsn, me.Number, me.SQLState, me.Message, tc.msg)
		}
	}
	if st := srv.Stats(); st.AuthFailures != 3 {
		t.Errorf("AuthFailures = %d, want 3", st.AuthFailures)
	}
	if !logs.has(slog.LevelWarn, "access denied user=bob client=127.0.0.1") {
		t.Errorf("no Warn record of the refused login in:\n%s", strings.Join(logs.all(), "\n"))
	}
	if got := query(t, good, "SELECT a FROM s"); !reflect.DeepEqual(got, [][]string{{"1"}}) {
		t.Errorf("the open session reads %v", got)
	}
}

// TestNoPasswordLetsAnyoneIn keeps the loopback behaviour without a
// password: any user, with or without a password.
func TestNoPasswordLetsAnyoneIn(t *testing.T) {
	srv := startServer(t)
	for _, cred := range []string{"root", "anyone:whatever"} {
		if err := openDSN(t, cred+"@tcp("+srv.Addr()+")/").Ping(); err != nil {
			t.Errorf("%s: %v", cred, err)
		}
	}
	if st := srv.Stats(); st.AuthFailures != 0 || st.ConnectionsAccepted < 2 {
		t.Errorf("stats %+v", st)
	}
}

// TestPasswordMariaDBClient logs in with the real mariadb client, which
// picks its method by itself, with the right and a wrong password.
func TestPasswordMariaDBClient(t *testing.T) {
	client := mysqlClient(t)
	srv := startServerWith(t, withPassword)
	host, port, _ := net.SplitHostPort(srv.Addr())
	run := func(password string) (string, error) {
		out, err := exec.Command(client, "--no-defaults", "-h", host, "-P", port, "-u", "root",
			"--password="+password, "-e", "SELECT 1 + 1 AS two").CombinedOutput()
		return string(out), err
	}
	if out, err := run("s3cret"); err != nil || out != "two\n2\n" {
		t.Errorf("right password: %v\n%s", err, out)
	}
	if out, err := run("nope"); err == nil || !strings.Contains(out, "ERROR 1045 (28000): Access denied for user 'root'@'127.0.0.1' (using password: YES)") {
		t.Errorf("wrong password: %v\n%s", err, out)
	}
}

// TestConfigCheck checks what Listen refuses: a non-loopback address
// without a password (ErrPasswordRequired), RequireTLS without TLS, a
// negative limit; and that a non-loopback address with a password is
// served.
func TestConfigCheck(t *testing.T) {
	for _, tc := range []struct {
		cfg  Config
		want error
		text string
	}{
		{Config{Addr: "0.0.0.0:3307"}, ErrPasswordRequired, "0.0.0.0:3307: serving an address other machines can reach needs a password"},
		{Config{Addr: ":3307"}, ErrPasswordRequired, ""},
		{Config{Addr: "db.example.com:3307"}, ErrPasswordRequired, ""},
		{Config{Addr: "127.0.0.1:3307", RequireTLS: true}, ErrTLSRequired, ""},
		{Config{Addr: "127.0.0.1:3307", Limits: Limits{MaxConnections: -1}}, nil, "MaxConnections must not be negative, got -1"},
		{Config{Addr: "nonsense"}, nil, "bad address"},
	} {
		err := tc.cfg.Check()
		if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) || !strings.Contains(err.Error(), tc.text) {
			t.Errorf("%+v: %v, want %v %q", tc.cfg, err, tc.want, tc.text)
		}
		if !errors.Is(err, ErrPasswordRequired) {
			continue
		}
		if err := CheckAddr(tc.cfg.Addr); !errors.Is(err, ErrNotLoopback) {
			t.Errorf("CheckAddr(%s) = %v, want ErrNotLoopback", tc.cfg.Addr, err)
		}
	}
	for _, addr := range []string{"127.0.0.1:1", "localhost:1", "[::1]:1", "127.0.0.2:1"} {
		if err := (Config{Addr: addr}).Check(); err != nil {
			t.Errorf("%s: %v", addr, err)
		}
	}

	// Every interface, with a password: served; a client reaches it
	// through the loopback interface.
	srv := startServerWith(t, func(cfg *Config) { withPassword(cfg); cfg.Addr = "0.0.0.0:0" })
	_, port, _ := net.SplitHostPort(srv.Addr())
	c := dbConn(t, openDSN(t, "root:s3cret@tcp(127.0.0.1:"+port+")/"))
	if err := c.PingContext(context.Background()); err != nil {
		t.Fatal(err)
	}
}
