package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestJenaRupdateBasicAuth runs Apache Jena's own SPARQL Update client,
// arq.rupdate from Debian's libapache-jena-java, against `perfkb serve`
// with HTTP Basic credentials in the service URL (the token as password):
// the update must land, and a wrong password or no credentials must be
// refused with the store unchanged. Jena's client sends the request
// without credentials first and answers only a Basic (or Digest)
// challenge, so this also holds the server to a 401 Jena can parse.
//
// It needs java and the jars of libapache-jena-java (bench/jena/cmd.sh
// runs the tool with the Xerces bundle workaround); it skips without them.
func TestJenaRupdateBasicAuth(t *testing.T) {
	if testing.Short() {
		t.Skip("builds perfkb, starts a server and three JVMs; skipped with -short")
	}
	jars := os.Getenv("JENA_JAVA_DIR")
	if jars == "" {
		jars = "/usr/share/java"
	}
	if _, err := exec.LookPath("java"); err != nil {
		t.Skip("no java on PATH: apt-get install default-jre-headless libapache-jena-java to run Jena's rupdate against perfkb")
	}
	if _, err := os.Stat(filepath.Join(jars, "jena-cmds.jar")); err != nil {
		t.Skipf("no %s/jena-cmds.jar: apt-get install libapache-jena-java to run Jena's rupdate against perfkb", jars)
	}
	if _, err := exec.LookPath("unzip"); err != nil {
		t.Skip("no unzip on PATH: bench/jena/xerces-bundles.sh needs it to work around Debian's jena-core packaging bug")
	}
	script, err := filepath.Abs(filepath.Join("..", "..", "bench", "jena", "cmd.sh"))
	if err != nil {
		t.Fatal(err)
	}

	const token = "rupdate-s3cret"
	dir := t.TempDir()
	e := &fedEnv{bin: buildPerfkb(t, dir), dir: dir}
	e.env = append(os.Environ(), "PERFKB_TOKEN=", "PERFKB_JENA_BUILD="+filepath.Join(dir, "jena"), "JENA_JAVA_DIR="+jars)
	srv := e.serve(t, "rupdate.db", "--token", token)
	base, err := url.Parse(srv.url)
	if err != nil {
		t.Fatal(err)
	}

	// rupdate runs the tool on update text in a file and returns its exit
	// code and combined output.
	rupdate := func(t *testing.T, user *url.Userinfo, update string) (int, string) {
		t.Helper()
		file := filepath.Join(dir, "update.ru")
		if err := os.WriteFile(file, []byte(update), 0o644); err != nil {
			t.Fatal(err)
		}
		service := *base
		service.User = user
		service.Path = "/sparql"
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "sh", script, "arq.rupdate", "--service", service.String(), "--update", file)
		cmd.Env = e.env
		out, err := cmd.CombinedOutput()
		if ctx.Err() != nil {
			t.Fatalf("rupdate did not finish in 2 minutes:\n%s", out)
		}
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode(), string(out)
		} else if err != nil {
			t.Fatalf("running %s: %v", script, err)
		}
		return 0, string(out)
	}
	// ask answers an ASK query over HTTP, without credentials (reads are open).
	ask := func(t *testing.T, query string) bool {
		t.Helper()
		resp, err := http.Get(srv.url + "/sparql?query=" + url.QueryEscape(query) + "&format=json")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("ASK: HTTP %d: %s", resp.StatusCode, body)
		}
		switch {
		case bytes.Contains(body, []byte(`"boolean":true`)):
			return true
		case bytes.Contains(body, []byte(`"boolean":false`)):
			return false
		}
		t.Fatalf("ASK: no boolean in %s", body)
		return false
	}

	const g = "http://perfkb.example/site/jena"
	insert := func(label string) string {
		return `PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
INSERT DATA { GRAPH <` + g + `> { <` + g + `/exp/1> rdfs:label "` + label + `" } }`
	}
	landed := func(t *testing.T, label string) bool {
		return ask(t, `ASK { GRAPH <`+g+`> { <`+g+`/exp/1> <http://www.w3.org/2000/01/rdf-schema#label> "`+label+`" } }`)
	}

	t.Run("token as password", func(t *testing.T) {
		code, out := rupdate(t, url.UserPassword("jena", token), insert("written by rupdate"))
		if code != 0 {
			t.Fatalf("rupdate with the token as Basic password: exit %d\n%s", code, out)
		}
		if !landed(t, "written by rupdate") {
			t.Fatalf("rupdate exited 0 but the triple is not in the store\n%s", out)
		}
	})
	t.Run("wrong password", func(t *testing.T) {
		code, out := rupdate(t, url.UserPassword("jena", "not-the-token"), insert("wrong password"))
		if code == 0 {
			t.Fatalf("rupdate with a wrong password exited 0:\n%s", out)
		}
		if !strings.Contains(out, "403") {
			t.Errorf("rupdate with a wrong password should report HTTP 403, said:\n%s", out)
		}
		if landed(t, "wrong password") {
			t.Fatal("an update with a wrong password changed the store")
		}
	})
	t.Run("no credentials", func(t *testing.T) {
		code, out := rupdate(t, nil, insert("no credentials"))
		if code == 0 {
			t.Fatalf("rupdate without credentials exited 0:\n%s", out)
		}
		if !strings.Contains(out, "401") {
			t.Errorf("rupdate without credentials should report HTTP 401, said:\n%s", out)
		}
		if landed(t, "no credentials") {
			t.Fatal("an update without credentials changed the store")
		}
	})
}
