package main

// The request-count attacks of the hardening issue (issue 30, items 1, 2,
// 4, 5, 8 and 13), each bounded in count and in time, and the legitimate
// sensors whose data must get through them. Each attack keeps a tally of
// what the server answered, printed at the end of the run; none of them
// decides the run's verdict, which is about the normal clients and the
// server staying alive.

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"maps"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/perfkb/perfkb/ontology"
)

// tally counts outcomes by name ("200", "413", "conn error", …).
type tally struct {
	mu sync.Mutex
	n  map[string]int
}

func (t *tally) add(outcome string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.n == nil {
		t.n = map[string]int{}
	}
	t.n[outcome]++
}

func (t *tally) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.n) == 0 {
		return "nothing sent"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(t.n)) {
		parts = append(parts, fmt.Sprintf("%s×%d", k, t.n[k]))
	}
	return strings.Join(parts, " ")
}

// attackConfig bounds the attacks.
type attackConfig struct {
	every             time.Duration // pause between two rounds of the request attacks
	rounds            int           // most rounds of each request attack
	queryMB, rulesMB  int           // sizes of the item 1 and 2 bodies
	floodConns        int           // item 4 connections
	floodMessages     int           // item 4 messages in all
	floodLeaves       int           // leaves in each item 4 message
	federated         int           // item 5 concurrent queries per round
	answerMB          int           // item 5 answer size
	slowPosts         int           // item 8 connections
	sensorSlowloris   int           // item 13 connections
	legitSensors      int           // sensors sending real data meanwhile
	legitSensorPeriod time.Duration // one message per sensor per period
	// items are the attacks that run, by the item number (nil:
	// all); the legitimate sensors run whatever it holds.
	items map[int]bool
}

// attackItems are the items the soak attacks with.
var attackItems = []int{1, 2, 4, 5, 8, 13}

// parseItems reads -attack-items: "all", "none", or item numbers
// separated by commas.
func parseItems(s string) (map[int]bool, error) {
	items := map[int]bool{}
	switch s {
	case "", "all":
		return nil, nil
	case "none":
		return items, nil
	}
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || !slices.Contains(attackItems, n) {
			return nil, fmt.Errorf("-attack-items %q: want \"all\", \"none\" or some of %v separated by commas", s, attackItems)
		}
		items[n] = true
	}
	return items, nil
}

// on reports whether item's attack runs.
func (a attackConfig) on(item int) bool { return a.items == nil || a.items[item] }

// attackTallies are the outcomes of each attack.
type attackTallies struct {
	bigQuery, bigRules, flood, federated, slowPost, slowloris tally
	legitSent, legitConns                                     atomic.Int64
	legitErrors                                               tally
}

func (a *attackTallies) print() {
	fmt.Printf("attack 1 (large query text, no token): %s\n", &a.bigQuery)
	fmt.Printf("attack 2 (rule files, three at once): %s\n", &a.bigRules)
	fmt.Printf("attack 4 (sensor flood): %s\n", &a.flood)
	fmt.Printf("attack 5 (federated COUNT over a large answer, ?timeout=3): %s\n", &a.federated)
	fmt.Printf("attack 8 (slow POST bodies): %s\n", &a.slowPost)
	fmt.Printf("attack 13 (sensor slowloris): %s\n", &a.slowloris)
}

// rounds calls fn at most n times, every d, until ctx ends; fn's round
// number starts at 0.
func rounds(ctx context.Context, n int, d time.Duration, fn func(round int)) {
	for i := 0; i < n && ctx.Err() == nil; i++ {
		fn(i)
		t := time.NewTimer(d)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

func status(resp *http.Response, err error) string {
	if err != nil {
		if strings.Contains(err.Error(), "Timeout") || strings.Contains(err.Error(), "deadline") {
			return "client timeout"
		}
		return "conn error"
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return strconv.Itoa(resp.StatusCode)
}

// bigQueryText is item 1's query: a FILTER IN over about mb MB of strings,
// which the parser used to expand some 50-fold.
func bigQueryText(mb int) []byte {
	var b bytes.Buffer
	b.WriteString("SELECT * WHERE { ?s ?p ?o FILTER(?o IN (")
	var num []byte
	for i := 0; b.Len() < mb<<20; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`"s`)
		num = strconv.AppendInt(num[:0], int64(i), 10)
		b.Write(num)
		b.WriteByte('"')
	}
	b.WriteString(")) }")
	return b.Bytes()
}

// bigRuleFile is item 2's rule file: about mb MB of small rules.
func bigRuleFile(mb int) []byte {
	var b bytes.Buffer
	for i := 0; b.Len() < mb<<20; i++ {
		fmt.Fprintf(&b, "[r%d: (?s <http://soak.example/p%d> ?o) -> (?s <http://soak.example/q> ?o)]\n", i, i)
	}
	return b.Bytes()
}

// floodMessage is item 4's valid sensor message of n leaves (about 8
// bytes each on the wire, many times that parsed).
func floodMessage(conn, k, n int) []byte {
	b := bytes.NewBuffer(make([]byte, 0, 8*n+256))
	fmt.Fprintf(b, `<sensordataentry SensorID="soak.flood.%d" ResourceID="flood"><![CDATA[<sensordata><eventtime>%d</eventtime><g>`, conn, 1200000000000+conn*1000000+k)
	for range n {
		b.WriteString("<v>1</v>")
	}
	b.WriteString(`</g></sensordata>]]></sensordataentry>`)
	return b.Bytes()
}

// legitMessage is one bandwidth measurement of a real sensor; eventtimes
// are unique per sensor and message, so every message is one
// PathBandwidthMeasurement in the store.
func legitMessage(sensor, k int) string {
	return fmt.Sprintf(`<sensordataentry SensorID="path.bandwidth.capacity.TCP" ResourceID="legit%d->b"><![CDATA[<sensordata><eventtime>%d</eventtime><bandwidth>3.5</bandwidth></sensordata>]]></sensordataentry>`,
		sensor, 1100000000000+sensor*10000000+k)
}

// fakeSite is a SPARQL endpoint answering every query with a results
// document of about mb MB (item 5: a registered site with a huge answer).
func fakeSite(mb int) (*http.Server, string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", err
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// One row buffer per answer: the federated queries ask at once.
		var row bytes.Buffer
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/sparql-results+json")
		io.WriteString(w, `{"head":{"vars":["s","p","o"]},"results":{"bindings":[`)
		written := 0
		for i := 0; written < mb<<20; i++ {
			row.Reset()
			if i > 0 {
				row.WriteByte(',')
			}
			fmt.Fprintf(&row, `{"s":{"type":"uri","value":"http://site.example/s%d"},"p":{"type":"uri","value":"http://site.example/p"},"o":{"type":"literal","value":"value %d"}}`, i, i)
			n, err := w.Write(row.Bytes())
			if err != nil {
				return // the coordinator gave up: what item 5 wants
			}
			written += n
		}
		io.WriteString(w, `]}}`)
	})}
	go srv.Serve(l)
	return srv, "http://" + l.Addr().String() + "/sparql", nil
}

// attackBodies are the large request bodies, built before the run so
// that building them costs the loaded phase nothing.
type attackBodies struct {
	query, rules []byte
	flood        [][]byte // one per item 4 connection
}

func buildAttackBodies(a attackConfig) attackBodies {
	b := attackBodies{query: bigQueryText(a.queryMB), rules: bigRuleFile(a.rulesMB)}
	for i := range a.floodConns {
		b.flood = append(b.flood, floodMessage(i, 0, a.floodLeaves))
	}
	return b
}

// runAttacks runs the attacks a selects until ctx ends or their counts
// are spent.
func runAttacks(ctx context.Context, a attackConfig, bodies attackBodies, base, sensorAddr, siteURL string, t *attackTallies) {
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 60 * time.Second}
	post := func(path, ctype string, body []byte, tl *tally) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, base+path, bytes.NewReader(body))
		req.Header.Set("Content-Type", ctype)
		tl.add(status(client.Do(req)))
	}
	// attack runs fn on a goroutine of its own when item's attack is on.
	attack := func(item int, fn func()) {
		if a.on(item) {
			wg.Add(1)
			go func() { defer wg.Done(); fn() }()
		}
	}
	// Item 1: query text outside the memory budget, no token.
	attack(1, func() {
		q := bodies.query
		rounds(ctx, a.rounds, a.every, func(int) { post("/sparql", "application/sparql-query", q, &t.bigQuery) })
	})
	// Item 2: rule files outside the budget, three at once, no token.
	attack(2, func() {
		rules := bodies.rules
		rounds(ctx, a.rounds, a.every, func(int) {
			var w sync.WaitGroup
			for range 3 {
				w.Add(1)
				go func() { defer w.Done(); post("/rules/check", "text/plain", rules, &t.bigRules) }()
			}
			w.Wait()
		})
	})
	// Item 5: federated COUNT over a large answer with a short timeout,
	// several at once.
	if siteURL != "" {
		attack(5, func() {
			q := []byte("SELECT (COUNT(*) AS ?n) WHERE { SERVICE <" + siteURL + "> { ?s ?p ?o } }")
			rounds(ctx, a.rounds, a.every, func(int) {
				var w sync.WaitGroup
				for range a.federated {
					w.Add(1)
					go func() {
						defer w.Done()
						post("/sparql?timeout=3", "application/sparql-query", q, &t.federated)
					}()
				}
				w.Wait()
			})
		})
	}
	// Item 8: slow POST bodies, one byte every 3 s, reconnecting when cut.
	addr := strings.TrimPrefix(base, "http://")
	for i := range a.slowPosts {
		attack(8, func() {
			for ctx.Err() == nil {
				c, err := net.DialTimeout("tcp", addr, 5*time.Second)
				if err != nil {
					t.slowPost.add("dial error")
					sleepCtx(ctx, time.Second)
					continue
				}
				t.slowPost.add("connected")
				fmt.Fprintf(c, "POST /sparql HTTP/1.1\r\nHost: %s\r\nContent-Type: application/sparql-query\r\nContent-Length: 1000\r\n\r\n", addr)
				for j := 0; ctx.Err() == nil; j++ {
					if _, err := c.Write([]byte{"ASK {}"[j%6]}); err != nil {
						t.slowPost.add("cut by server")
						break
					}
					sleepCtx(ctx, 3*time.Second+time.Duration(i)*time.Millisecond)
				}
				c.Close()
			}
		})
	}
	if sensorAddr != "" {
		// Item 4: valid, large sensor messages from several connections.
		var floodLeft atomic.Int64
		floodLeft.Store(int64(a.floodMessages))
		for i := range a.floodConns {
			attack(4, func() {
				for k := 0; ctx.Err() == nil && floodLeft.Add(-1) >= 0; k++ {
					c, err := net.DialTimeout("tcp", sensorAddr, 5*time.Second)
					if err != nil {
						t.flood.add("dial error")
						sleepCtx(ctx, time.Second)
						continue
					}
					c.SetWriteDeadline(time.Now().Add(2 * time.Minute))
					// The same message again: eventtime repeats, the
					// store keeps one copy, the listener converts each.
					if _, err := c.Write(bodies.flood[i]); err != nil {
						t.flood.add("write cut")
					} else {
						t.flood.add("sent")
					}
					c.Close()
				}
			})
		}
		// Item 13: sensor slowloris, a byte every 2 s per connection.
		for i := range a.sensorSlowloris {
			attack(13, func() {
				const msg = `<sensordataentry SensorID="soak.slow" ResourceID="slow"><![CDATA[<sensordata><eventtime>1</eventtime><v>1</v></sensordata>]]></sensordataentry>`
				for ctx.Err() == nil {
					c, err := net.DialTimeout("tcp", sensorAddr, 5*time.Second)
					if err != nil {
						t.slowloris.add("dial error")
						sleepCtx(ctx, time.Second)
						continue
					}
					t.slowloris.add("connected")
					for j := 0; ctx.Err() == nil; j++ {
						c.SetWriteDeadline(time.Now().Add(10 * time.Second))
						if _, err := c.Write([]byte{msg[j%len(msg)]}); err != nil {
							t.slowloris.add("cut by server")
							break
						}
						sleepCtx(ctx, 2*time.Second+time.Duration(i)*time.Millisecond)
					}
					c.Close()
				}
			})
		}
		// The legitimate sensors: one message each per period, on a
		// connection kept open, reconnecting when it is cut.
		for i := range a.legitSensors {
			wg.Add(1)
			go func() {
				defer wg.Done()
				var c net.Conn
				p := newPacer(float64(time.Second)/float64(a.legitSensorPeriod), 3000+i)
				for k := 0; ; {
					if _, ok := p.wait(ctx); !ok {
						break
					}
					if c == nil {
						var err error
						if c, err = net.DialTimeout("tcp", sensorAddr, 5*time.Second); err != nil {
							t.legitErrors.add("dial error")
							continue
						}
						t.legitConns.Add(1)
					}
					c.SetWriteDeadline(time.Now().Add(10 * time.Second))
					if _, err := io.WriteString(c, legitMessage(i, k)); err != nil {
						t.legitErrors.add("write error")
						c.Close()
						c = nil
						continue
					}
					k++
					t.legitSent.Add(1)
				}
				if c != nil {
					c.Close()
				}
			}()
		}
	}
	wg.Wait()
}

func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
	case <-t.C:
	}
}

// countLegit counts the legitimate sensors' measurements in the store.
func countLegit(base string) (int64, error) {
	q := "SELECT (COUNT(?m) AS ?n) WHERE { GRAPH ?g { ?m a <" + ontology.PathBandwidthMeasurement + "> } }"
	resp, err := http.PostForm(base+"/sparql", url.Values{"query": {q}})
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	i := bytes.Index(b, []byte(`"value":"`))
	if i < 0 {
		return 0, fmt.Errorf("counting sensor measurements: %d %s", resp.StatusCode, b)
	}
	rest := b[i+len(`"value":"`):]
	j := bytes.IndexByte(rest, '"')
	return strconv.ParseInt(string(rest[:j]), 10, 64)
}
