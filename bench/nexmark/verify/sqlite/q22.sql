-- q22 by hand: SQLite has no SPLIT_PART. SPLIT_PART(url, '/', k) is the
-- text between the (k-1)-th and the k-th '/' (to the end for the last
-- part; '' past it). a1..a5 are the URL after its first 1..5 slashes
-- ('' when it has fewer); dir1..dir3 are a3..a5 up to their next '/'.
WITH s1 AS (
  SELECT *, CASE WHEN instr(url, '/') > 0 THEN substr(url, instr(url, '/') + 1) END AS a1 FROM bid
), s2 AS (
  SELECT *, CASE WHEN instr(a1, '/') > 0 THEN substr(a1, instr(a1, '/') + 1) END AS a2 FROM s1
), s3 AS (
  SELECT *, CASE WHEN instr(a2, '/') > 0 THEN substr(a2, instr(a2, '/') + 1) END AS a3 FROM s2
), s4 AS (
  SELECT *, CASE WHEN instr(a3, '/') > 0 THEN substr(a3, instr(a3, '/') + 1) END AS a4 FROM s3
), s5 AS (
  SELECT *, CASE WHEN instr(a4, '/') > 0 THEN substr(a4, instr(a4, '/') + 1) END AS a5 FROM s4
)
SELECT auction, bidder, price, channel,
       coalesce(CASE WHEN instr(a3, '/') > 0 THEN substr(a3, 1, instr(a3, '/') - 1) ELSE a3 END, '') AS dir1,
       coalesce(CASE WHEN instr(a4, '/') > 0 THEN substr(a4, 1, instr(a4, '/') - 1) ELSE a4 END, '') AS dir2,
       coalesce(CASE WHEN instr(a5, '/') > 0 THEN substr(a5, 1, instr(a5, '/') - 1) ELSE a5 END, '') AS dir3
FROM s5
