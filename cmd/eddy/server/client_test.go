package server

import (
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// mysqlClient returns the path of the mysql or mariadb command-line
// client. Without one the test is skipped, except under CI=true, where
// .ci/run installs it, so that it fails.
func mysqlClient(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"mariadb", "mysql"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := "no mysql or mariadb client on PATH: install Debian's mariadb-client (apt-get install -y mariadb-client)"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// TestMySQLClient runs the real mariadb (or mysql) client against the
// server: it connects (sending its own @@version_comment query), runs a
// script of DDL, INSERT, a pull query, a push query with LIMIT and SHOW,
// and prints their results in batch mode; then a statement that fails
// reports its MySQL error code and eddy's line:column.
func TestMySQLClient(t *testing.T) {
	client := mysqlClient(t)
	srv := startServer(t)
	host, port, err := net.SplitHostPort(srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	run := func(script string) (string, error) {
		cmd := exec.Command(client, "--no-defaults", "-h", host, "-P", port, "-u", "root", "-e", script)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run(`CREATE STREAM bid (auction BIGINT, price DECIMAL(8,2), channel VARCHAR);
INSERT INTO bid VALUES (1, 12.50, 'web'), (2, 3.25, NULL);
SELECT auction, price, channel FROM bid ORDER BY auction;
SELECT auction FROM bid EMIT CHANGES LIMIT 2;
SHOW STREAMS;`)
	if err != nil {
		t.Fatalf("%v:\n%s", err, out)
	}
	want := "auction\tprice\tchannel\n1\t12.50\tweb\n2\t3.25\tNULL\n" +
		"op\tauction\n+I\t1\n+I\t2\n" +
		"name\tconnector\tcolumns\nbid\tinsert\tauction BIGINT, price DECIMAL(8,2), channel VARCHAR\n"
	if out != want {
		t.Errorf("client output:\n%s\nwant:\n%s", out, want)
	}
	out, err = run("SELECT\n  prize FROM bid;")
	if err == nil || !strings.Contains(out, "ERROR 1105 (HY000) at line 1: unknown column 'prize' at 2:3") {
		t.Errorf("error output (%v):\n%s", err, out)
	}
}
