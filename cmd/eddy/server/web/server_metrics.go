package web

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/eddysql/eddy/cmd/eddy/server"
)

// Sessions is the MySQL protocol server whose connection figures
// /metrics publishes (a *server.Server).
type Sessions interface {
	Stats() server.Stats
}

// sessionsCollector publishes a Sessions' figures, read at every scrape.
type sessionsCollector struct {
	s                                     Sessions
	accepted, refused, authFailures, open *prometheus.Desc
	statementsRefused                     *prometheus.Desc
}

func newSessionsCollector(s Sessions) *sessionsCollector {
	d := func(name, help string) *prometheus.Desc {
		return prometheus.NewDesc("eddy_mysql_"+name, help, nil, nil)
	}
	return &sessionsCollector{s: s,
		accepted:          d("connections_accepted_total", "Connections the connection limits let in (before authentication)."),
		refused:           d("connections_refused_total", "Connections refused by --max-connections, --max-connections-per-client or --require-tls."),
		authFailures:      d("auth_failures_total", "Logins refused for a wrong user or password."),
		open:              d("connections_open", "Connections open now, logged in or not."),
		statementsRefused: d("statements_refused_total", "Statements refused by --max-statements-per-client or --max-statement-bytes."),
	}
}

func (c *sessionsCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{c.accepted, c.refused, c.authFailures, c.open, c.statementsRefused} {
		ch <- d
	}
}

func (c *sessionsCollector) Collect(ch chan<- prometheus.Metric) {
	st := c.s.Stats()
	ch <- prometheus.MustNewConstMetric(c.accepted, prometheus.CounterValue, float64(st.ConnectionsAccepted))
	ch <- prometheus.MustNewConstMetric(c.refused, prometheus.CounterValue, float64(st.ConnectionsRefused))
	ch <- prometheus.MustNewConstMetric(c.authFailures, prometheus.CounterValue, float64(st.AuthFailures))
	ch <- prometheus.MustNewConstMetric(c.open, prometheus.GaugeValue, float64(st.Open))
	ch <- prometheus.MustNewConstMetric(c.statementsRefused, prometheus.CounterValue, float64(st.StatementsRefused))
}
