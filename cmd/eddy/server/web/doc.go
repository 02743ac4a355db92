// Package web is the HTTP side of `eddy serve`: a Prometheus endpoint
// (/metrics), a JSON API (/api/catalog, /api/queries, /api/queries/{name})
// and a web page (/) that draws every running query's dataflow with its
// live figures, all read from the engine's observation API
// (engine.ObserveCatalog, ObserveQueries, ObserveQuery) when asked, so
// nothing is sampled or kept between requests.
//
// The listener follows the MySQL server's rule: a loopback address needs
// no password, any other address is refused unless a password is
// configured, and with a password every request must carry it through
// HTTP basic authentication.
//
// The page is plain HTML, CSS and JavaScript embedded in the binary
// (static/): it polls /api/queries every second, computes rates from the
// difference between two polls, and draws stages as boxes of operators
// and exchanges as labelled edges. Nothing is loaded from elsewhere.
package web
