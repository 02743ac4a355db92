// Package mview holds materialized views: View, the integral of a query's
// changes that pull queries read, and Subscription, through which views
// over views and push queries receive a view's current rows and then every
// change (with the view's flush markers, so FLUSH reaches them in order);
// and Sink, the operator that ends a view's dataflow — which, when its
// query is rebuilt while the view is kept, reconciles the view with the
// rebuilt query's result (reconcile.go).
package mview
