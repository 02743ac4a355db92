// Package planner binds parsed statements to the catalog: it resolves names
// through scopes and aliases, types every expression (inserting implicit
// casts), and builds the logical plan of planner/plan. It reports errors
// with the position of the offending name or expression and, for unknown
// names, suggests a close one. It chooses no algorithms: that is the
// optimizer's job.
package planner
