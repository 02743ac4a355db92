// Package rules holds eddy's rewrite rules, one rule per file, named after
// the rule (push_filter_through_project.go → PushFilterThroughProject). Each
// rule matches one node, says whether it changed it, and documents in its
// doc comment the rewrite (before ⇒ after), why it preserves results (its
// safety condition: NULLs, retractions, watermarks, non-determinism) and
// when it pays off (its profitability condition). The optimizer package owns
// traversal, fixpoints and the ordered list of phases; rules never walk the
// tree themselves.
package rules
