package federation

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/query/eval"
	"github.com/perfkb/perfkb/query/syntax"
)

// RegistryGraph is the named graph of the local store holding the site
// registry and the Global Experiment Metadata.
const RegistryGraph = "urn:x-perfkb:sites"

// siteIRIPrefix names the registry's site resources.
const siteIRIPrefix = "urn:x-perfkb:site:"

// ErrUnknownSite is returned for a site name that is not registered.
var ErrUnknownSite = errors.New("unknown site")

// ErrSiteExists is returned when adding a name already registered.
var ErrSiteExists = errors.New("site already registered")

var siteNameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// CheckName reports whether name can name a site (letters, digits, '_',
// '.', '-'; it is used in IRIs, URLs and comma lists).
func CheckName(name string) error {
	if name == "local" || name == "all" {
		return fmt.Errorf("site name %q is reserved (it means the local store or every site in --sites)", name)
	}
	if !siteNameRE.MatchString(name) {
		return fmt.Errorf("site name %q: want letters, digits, '_', '.' or '-' (at most 64)", name)
	}
	return nil
}

// SiteInfo is a registered site with what the registry knows about it.
type SiteInfo struct {
	Site
	// LastRefreshed is when its GEM records were last replaced (zero:
	// never).
	LastRefreshed time.Time `json:"lastRefreshed,omitzero"`
	// Status is the outcome of the last refresh ("ok" or the reason).
	Status string `json:"status,omitempty"`
	// Experiments is the number of GEM records naming the site.
	Experiments int `json:"experiments"`
}

// SiteEntry is one row of a server's site listing (GET /sites): a named
// graph of the local store, or a registered site reached over SPARQL.
type SiteEntry struct {
	Name string `json:"name"`
	// Graph is the named graph holding the site's data locally, if any.
	Graph string `json:"graph,omitempty"`
	// Endpoint is the site's SPARQL endpoint, if remote.
	Endpoint    string   `json:"endpoint,omitempty"`
	Triples     int64    `json:"triples"`
	Experiments []string `json:"experiments,omitempty"`
	// Kind is "local" (a graph of this store) or "remote" (a registered
	// site reached over SPARQL).
	Kind string `json:"kind,omitempty"`
	// For remote sites: the outcome of the last refresh, when it was, the
	// number of experiments it holds and the name of the variable holding
	// its token (never the token).
	Status          string    `json:"status,omitempty"`
	LastRefreshed   time.Time `json:"lastRefreshed,omitzero"`
	ExperimentCount int       `json:"experimentCount,omitempty"`
	TokenEnv        string    `json:"tokenEnv,omitempty"`
}

// Registry is the site registry and GEM kept in RegistryGraph of a store.
type Registry struct {
	DS kb.Dataset
}

func siteIRI(name string) kb.Term { return kb.IRI(siteIRIPrefix + name) }

var registryGraph = kb.IRI(RegistryGraph)

// List returns the registered sites sorted by name.
func (r *Registry) List(ctx context.Context) ([]SiteInfo, error) {
	text := fmt.Sprintf(`SELECT ?s ?name ?ep ?tok ?when ?status (COUNT(?e) AS ?n) WHERE {
  GRAPH <%s> {
    ?s a <%s> ; <%s> ?name ; <%s> ?ep .
    OPTIONAL { ?s <%s> ?tok }
    OPTIONAL { ?s <%s> ?when }
    OPTIONAL { ?s <%s> ?status }
    OPTIONAL { ?e <%s> ?s }
  }
} GROUP BY ?s ?name ?ep ?tok ?when ?status ORDER BY ?name`,
		RegistryGraph, ontology.Site, ontology.SiteName, ontology.SparqlEndpoint,
		ontology.TokenVariable, ontology.LastRefreshed, ontology.SiteStatus, ontology.HeldBy)
	// The engine's stages directly: package query imports this one (to
	// fan queries out), so this one cannot import query.
	q, err := syntax.ParseQuery(text, syntax.Options{})
	if err != nil {
		return nil, fmt.Errorf("reading the site registry: %w", err)
	}
	res, err := eval.Query(ctx, r.DS, q, eval.Options{})
	if err != nil {
		return nil, fmt.Errorf("reading the site registry: %w", err)
	}
	defer res.Close()
	var rows [][]kb.Term
	for {
		row, ok := res.Next()
		if !ok {
			break
		}
		rows = append(rows, row)
	}
	if err := res.Err(); err != nil {
		return nil, fmt.Errorf("reading the site registry: %w", err)
	}
	var out []SiteInfo
	for _, row := range rows {
		si := SiteInfo{Site: Site{Name: row[1].Value, Endpoint: row[2].Value, TokenEnv: row[3].Value}, Status: row[5].Value}
		if !row[4].IsZero() {
			si.LastRefreshed, _ = time.Parse(time.RFC3339Nano, row[4].Value)
		}
		si.Experiments, _ = strconv.Atoi(row[6].Value)
		out = append(out, si)
	}
	return out, nil
}

// Sites returns the registered sites without their GEM statistics.
func (r *Registry) Sites(ctx context.Context) ([]Site, error) {
	infos, err := r.List(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Site, len(infos))
	for i, s := range infos {
		out[i] = s.Site
	}
	return out, nil
}

// Get returns the registered site called name.
func (r *Registry) Get(ctx context.Context, name string) (SiteInfo, error) {
	infos, err := r.List(ctx)
	if err != nil {
		return SiteInfo{}, err
	}
	for _, s := range infos {
		if s.Name == name {
			return s, nil
		}
	}
	return SiteInfo{}, fmt.Errorf("%w %q", ErrUnknownSite, name)
}

// Add registers a site. The token variable name is stored, never a token.
func (r *Registry) Add(ctx context.Context, s Site) error {
	if err := CheckName(s.Name); err != nil {
		return err
	}
	if err := CheckEndpoint(s.Endpoint); err != nil {
		return err
	}
	if s.TokenEnv != "" {
		if err := CheckTokenEnv(s.TokenEnv); err != nil {
			return err
		}
	}
	if _, err := r.Get(ctx, s.Name); err == nil {
		return fmt.Errorf("%w: %q", ErrSiteExists, s.Name)
	} else if !errors.Is(err, ErrUnknownSite) {
		return err
	}
	node := siteIRI(s.Name)
	quads := []kb.TermQuad{
		{S: node, P: kb.IRI(ontology.RDFType), O: kb.IRI(ontology.Site), G: registryGraph},
		{S: node, P: kb.IRI(ontology.SiteName), O: kb.String(s.Name), G: registryGraph},
		{S: node, P: kb.IRI(ontology.SparqlEndpoint), O: kb.IRI(s.Endpoint), G: registryGraph},
	}
	if s.TokenEnv != "" {
		quads = append(quads, kb.TermQuad{S: node, P: kb.IRI(ontology.TokenVariable), O: kb.String(s.TokenEnv), G: registryGraph})
	}
	return r.apply(ctx, nil, quads)
}

// Remove unregisters a site and drops its GEM records.
func (r *Registry) Remove(ctx context.Context, name string) error {
	if _, err := r.Get(ctx, name); err != nil {
		return err
	}
	old, err := r.siteQuads(ctx, name, true)
	if err != nil {
		return err
	}
	return r.apply(ctx, old, nil)
}

// siteQuads returns the registry quads about the site (with the GEM records
// naming it and the experiments' identifiers when all is set) or, without
// all, only its GEM records and refresh statements.
func (r *Registry) siteQuads(ctx context.Context, name string, all bool) ([]kb.Quad, error) {
	node := siteIRI(name)
	ids, err := r.DS.Intern(ctx, []kb.Term{node, registryGraph, kb.IRI(ontology.HeldBy), kb.IRI(ontology.ExperimentIdentifier), kb.IRI(ontology.LastRefreshed), kb.IRI(ontology.SiteStatus)})
	if err != nil {
		return nil, err
	}
	s, g, heldBy, ident, refreshed, status := ids[0], ids[1], ids[2], ids[3], ids[4], ids[5]
	var out []kb.Quad
	about, err := kb.Collect(r.DS.Match(ctx, kb.Pattern{S: s, G: g}))
	if err != nil {
		return nil, err
	}
	for _, q := range about {
		if all || q.P == refreshed || q.P == status {
			out = append(out, q)
		}
	}
	held, err := kb.Collect(r.DS.Match(ctx, kb.Pattern{P: heldBy, O: s, G: g}))
	if err != nil {
		return nil, err
	}
	for _, q := range held {
		out = append(out, q)
		idq, err := kb.Collect(r.DS.Match(ctx, kb.Pattern{S: q.S, P: ident, G: g}))
		if err != nil {
			return nil, err
		}
		out = append(out, idq...)
	}
	return out, nil
}

func (r *Registry) apply(ctx context.Context, remove []kb.Quad, add []kb.TermQuad) error {
	ids, err := kb.InternQuads(ctx, r.DS, add)
	if err != nil {
		return err
	}
	return r.DS.Apply(ctx, kb.Delta{Remove: remove, Add: ids})
}

// RefreshResult is the outcome of refreshing one site.
type RefreshResult struct {
	Site        string `json:"site"`
	Experiments int    `json:"experiments"`
	Millis      int64  `json:"ms"`
	Error       string `json:"error,omitempty"`
}

// experimentsQuery asks a site for its experiments and their identifiers.
var experimentsQuery = fmt.Sprintf(`SELECT DISTINCT ?e ?id WHERE { ?e a <%s> OPTIONAL { ?e <%s> ?id } }`,
	ontology.Experiment, ontology.ExperimentIdentifier)

// Refresh asks each named site (every site when names is empty) for its
// experiments and replaces its GEM records in one atomic change per site.
// A failing site keeps its old records; its status records the reason.
func (r *Registry) Refresh(ctx context.Context, c *Client, names []string) ([]RefreshResult, error) {
	sites, err := r.selected(ctx, names)
	if err != nil {
		return nil, err
	}
	var out []RefreshResult
	for _, s := range sites {
		start := time.Now()
		res := RefreshResult{Site: s.Name}
		rs, _, qerr := c.Select(ctx, s.Endpoint, experimentsQuery)
		res.Millis = time.Since(start).Milliseconds()
		node := siteIRI(s.Name)
		now := kb.Literal(time.Now().UTC().Format(time.RFC3339), ontology.XSDDateTime)
		var remove []kb.Quad
		var add []kb.TermQuad
		if qerr != nil {
			res.Error = qerr.Error()
			// Keep the old records; only the status changes.
			old, err := r.statusQuads(ctx, s.Name)
			if err != nil {
				return out, err
			}
			remove = old
			add = append(add, kb.TermQuad{S: node, P: kb.IRI(ontology.SiteStatus), O: kb.String("failed: " + qerr.Error()), G: registryGraph})
		} else {
			remove, err = r.siteQuads(ctx, s.Name, false)
			if err != nil {
				return out, err
			}
			seen := map[kb.Term]bool{}
			for _, row := range rs.Rows {
				if len(row) < 1 || !row[0].IsIRI() {
					continue
				}
				e := row[0]
				if !seen[e] {
					seen[e] = true
					add = append(add, kb.TermQuad{S: e, P: kb.IRI(ontology.HeldBy), O: node, G: registryGraph})
				}
				if len(row) > 1 && row[1].IsLiteral() {
					add = append(add, kb.TermQuad{S: e, P: kb.IRI(ontology.ExperimentIdentifier), O: row[1], G: registryGraph})
				}
			}
			res.Experiments = len(seen)
			add = append(add,
				kb.TermQuad{S: node, P: kb.IRI(ontology.LastRefreshed), O: now, G: registryGraph},
				kb.TermQuad{S: node, P: kb.IRI(ontology.SiteStatus), O: kb.String("ok"), G: registryGraph})
		}
		if err := r.apply(ctx, remove, add); err != nil {
			return out, fmt.Errorf("recording the refresh of %s: %w", s.Name, err)
		}
		out = append(out, res)
	}
	return out, nil
}

func (r *Registry) statusQuads(ctx context.Context, name string) ([]kb.Quad, error) {
	ids, err := r.DS.Intern(ctx, []kb.Term{siteIRI(name), kb.IRI(ontology.SiteStatus), registryGraph})
	if err != nil {
		return nil, err
	}
	return kb.Collect(r.DS.Match(ctx, kb.Pattern{S: ids[0], P: ids[1], G: ids[2]}))
}

// selected returns the named sites, or all when names is empty.
func (r *Registry) selected(ctx context.Context, names []string) ([]Site, error) {
	all, err := r.Sites(ctx)
	if err != nil {
		return nil, err
	}
	return pick(all, names)
}

// pick returns the named sites of all, or all when names is empty.
func pick(all []Site, names []string) ([]Site, error) {
	if len(names) == 0 {
		return all, nil
	}
	byName := map[string]Site{}
	for _, s := range all {
		byName[s.Name] = s
	}
	var out []Site
	for _, n := range names {
		s, ok := byName[n]
		if !ok {
			return nil, fmt.Errorf("%w %q (registered: %s)", ErrUnknownSite, n, siteNames(all))
		}
		out = append(out, s)
	}
	return out, nil
}

func siteNames(sites []Site) string {
	var names []string
	for _, s := range sites {
		names = append(names, s.Name)
	}
	sort.Strings(names)
	if len(names) == 0 {
		return "none"
	}
	return fmt.Sprint(names)
}

// CheckResult is the outcome of pinging one site.
type CheckResult struct {
	Site   string `json:"site"`
	OK     bool   `json:"ok"`
	Millis int64  `json:"ms"`
	Error  string `json:"error,omitempty"`
}

// CheckSites sends ASK {} to each named site (every site when names is
// empty) at once and reports whether it answered and how fast.
func CheckSites(ctx context.Context, c *Client, all []Site, names []string) ([]CheckResult, error) {
	sites, err := pick(all, names)
	if err != nil {
		return nil, err
	}
	out := make([]CheckResult, len(sites))
	done := make(chan struct{})
	for i, s := range sites {
		go func() {
			defer func() { done <- struct{}{} }()
			start := time.Now()
			rs, _, err := c.Select(ctx, s.Endpoint, "ASK {}")
			out[i] = CheckResult{Site: s.Name, Millis: time.Since(start).Milliseconds()}
			switch {
			case err != nil:
				out[i].Error = err.Error()
			case rs.Boolean == nil:
				out[i].Error = "the answer to ASK has no boolean"
			default:
				out[i].OK = true
			}
		}()
	}
	for range sites {
		<-done
	}
	return out, nil
}

// TokenEnvPrefix starts the name of every environment variable a site's
// token may be read from. A registration names the variable, and
// registrations arrive over HTTP (POST /sites): without the prefix one
// could name any secret of the server's environment and have it sent as a
// bearer token to an endpoint of its choosing.
const TokenEnvPrefix = "PERFKB_SITE_"

var tokenEnvRE = regexp.MustCompile(`^` + TokenEnvPrefix + `[A-Za-z0-9_]+$`)

// CheckTokenEnv reports whether name may hold a site's token: an
// environment variable name that starts with TokenEnvPrefix.
func CheckTokenEnv(name string) error {
	if !tokenEnvRE.MatchString(name) {
		return fmt.Errorf("--token-env %q: want the name of an environment variable starting with %s (e.g. %sLINZ)", name, TokenEnvPrefix, TokenEnvPrefix)
	}
	return nil
}
