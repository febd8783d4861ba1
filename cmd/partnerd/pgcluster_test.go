package main

import (
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
)

// pgCluster is a Postgres server of the test's own (initdb in a temporary directory, its own
// port), so that a test may stop and start it without disturbing other tests' databases.
type pgCluster struct {
	t    *testing.T
	bin  string
	dir  string
	port string
	as   string // the user the server runs as when the test runs as root
}

// newPGCluster starts a private Postgres server, or skips the test when no Postgres server
// binaries are installed (and fails under CI, which installs them).
func newPGCluster(t *testing.T) *pgCluster {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		if os.Getenv("CI") != "" {
			t.Fatal("no Postgres server binaries under /usr/lib/postgresql: the fault suite needs them")
		}
		t.Skip("no Postgres server binaries under /usr/lib/postgresql")
	}
	sort.Strings(bins)
	c := &pgCluster{t: t, bin: filepath.Dir(bins[len(bins)-1]), port: freeTCPPort(t)}
	c.dir = filepath.Join(t.TempDir(), "pg")
	if err := os.Mkdir(c.dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		// Postgres refuses to run as root.
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatal("running as root without a postgres user to run the server as")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		for d := c.dir; d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
			if err := os.Chown(d, uid, gid); err != nil {
				t.Fatal(err)
			}
		}
		c.as = "postgres"
	}
	c.run("initdb", "-D", c.dir, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8")
	c.start()
	t.Cleanup(func() { _ = c.command("pg_ctl", "-D", c.dir, "stop", "-m", "immediate").Run() })
	return c
}

// URL is the connection URL of a database of the cluster (created by createDatabase).
func (c *pgCluster) URL(db string) string {
	return fmt.Sprintf("postgres://postgres@127.0.0.1:%s/%s?sslmode=disable&connect_timeout=2", c.port, db)
}

func (c *pgCluster) createDatabase(name string) {
	c.t.Helper()
	c.run("createdb", "-h", "127.0.0.1", "-p", c.port, "-U", "postgres", name)
}

func (c *pgCluster) start() {
	c.t.Helper()
	c.pgctl("start", "-w", "-l", filepath.Join(c.dir, "server.log"),
		"-o", "-p "+c.port+" -c listen_addresses=127.0.0.1 -k "+c.dir+" -c fsync=off")
}

// stop ends the server at once, as a crash would (immediate mode: no checkpoint).
func (c *pgCluster) stop() {
	c.t.Helper()
	c.pgctl("stop", "-w", "-m", "immediate")
}

func (c *pgCluster) pgctl(args ...string) {
	c.t.Helper()
	c.run("pg_ctl", append([]string{"-D", c.dir}, args...)...)
}

func (c *pgCluster) command(name string, args ...string) *exec.Cmd {
	if c.as != "" {
		return exec.Command("runuser", append([]string{"-u", c.as, "--", filepath.Join(c.bin, name)}, args...)...)
	}
	return exec.Command(filepath.Join(c.bin, name), args...)
}

func (c *pgCluster) run(name string, args ...string) {
	c.t.Helper()
	if out, err := c.command(name, args...).CombinedOutput(); err != nil {
		c.t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}
