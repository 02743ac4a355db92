-- Every family of scalar functions that SQLite can check faithfully:
-- strings, numbers, dates and times. Inputs carry NULLs, empty strings,
-- negative numbers and times before the epoch.

-- entry: string_functions
-- Case (over ASCII only: SQLite's UPPER and LOWER leave other letters
-- alone), concatenation (|| concatenates in eddy), lengths (LENGTH counts bytes, CHAR_LENGTH
-- characters: s holds multi-byte text), substrings and positions
-- (1-based, in characters; a negative start counts from the end).
CREATE MATERIALIZED VIEW v AS
  SELECT id, UPPER(k) AS up, LOWER(CONCAT(k, 'X')) AS low, UCASE(k) AS uk, LCASE(CONCAT('Q', k)) AS lc,
         CONCAT(k, '-', s) AS ks, CONCAT('#', id) AS tag, k || '/' || s AS piped,
         LENGTH(s) AS len, CHAR_LENGTH(s) AS clen, SUBSTRING(s, 2) AS sub2, SUBSTRING(s, 2, 3) AS sub23,
         SUBSTR(s, -3) AS last3, SUBSTRING(s, -4, 2) AS mid, SUBSTRING(s, 0) AS sub0,
         LOCATE('a', s) AS loc_a, INSTR(s, 'ta') AS ins_ta, POSITION('é' IN s) AS pos_e
  FROM ev;

-- entry: string_trim_pad
-- TRIM in its forms, REPLACE, LEFT and RIGHT (counts <= 0 give ''), LPAD
-- and RPAD (cut when too long, NULL for a negative length).
CREATE MATERIALIZED VIEW v AS
  SELECT id, TRIM(s) AS t, LTRIM(s) AS lt, RTRIM(s) AS rt, TRIM(BOTH 'a' FROM s) AS ta,
         TRIM(LEADING ' ' FROM s) AS tl, TRIM(TRAILING 'a' FROM s) AS tt, REPLACE(s, 'a', 'AA') AS rep,
         REPLACE(s, ' ', '') AS nospace, LEFT(s, 3) AS l3, RIGHT(s, 2) AS r2, LEFT(s, g) AS lg, RIGHT(s, g) AS rg,
         LPAD(k, 3, 'xy') AS lp, RPAD(s, 7, '.') AS rp, LPAD(CONCAT(g), g + 3, '0') AS lpg
  FROM ev;

-- entry: url_parsing
-- String functions over the bid URLs, grouped by a piece of the path.
CREATE MATERIALIZED VIEW v AS
  SELECT SUBSTRING(url, 25, LOCATE('/', url, 25) - 25) AS section,
         RIGHT(url, 1) AS query, COUNT(*) AS n, MIN(LENGTH(url)) AS shortest,
         MAX(REPLACE(url, 'https://www.nexmark.com/', '')) AS last_path
  FROM bid GROUP BY SUBSTRING(url, 25, LOCATE('/', url, 25) - 25), RIGHT(url, 1);

-- entry: math_functions
-- ABS keeps its type, ROUND of decimals rounds half away from zero (the
-- data has no ties), FLOOR and CEIL, MOD (sign of the dividend, NULL for
-- 0), POWER and SQRT (NULL for a negative argument).
CREATE MATERIALIZED VIEW v AS
  SELECT id, ABS(g) AS ag, ABS(d) AS ad, ABS(x) AS ax, ROUND(d) AS rd0, ROUND(d, 1) AS rd1, ROUND(d, 2) AS rd2,
         FLOOR(x) AS fx, CEIL(x) AS cx, FLOOR(d) AS fd, CEILING(d) AS cd, MOD(g, 3) AS mg, MOD(id, g) AS mig,
         MOD(d, 2) AS md, POWER(g, 2) AS pg, SQRT(x) AS sx, SQRT(ABS(d)) AS sd
  FROM ev;

-- entry: time_functions
-- EXTRACT of every unit from times on both sides of the epoch (DOW
-- counts from 1 = Sunday, MILLISECOND includes the seconds, EPOCH is
-- whole seconds), DATE, UNIX_TIMESTAMP and FROM_UNIXTIME.
CREATE MATERIALIZED VIEW v AS
  SELECT id, ts, EXTRACT(YEAR FROM ts) AS y, EXTRACT(QUARTER FROM ts) AS q, EXTRACT(MONTH FROM ts) AS mo,
         EXTRACT(DAY FROM ts) AS dd, EXTRACT(HOUR FROM ts) AS h, EXTRACT(MINUTE FROM ts) AS mi,
         EXTRACT(SECOND FROM ts) AS sec, EXTRACT(MILLISECOND FROM ts) AS ms, EXTRACT(DOW FROM ts) AS dow,
         EXTRACT(DOY FROM ts) AS doy, EXTRACT(EPOCH FROM ts) AS ep, DATE(ts) AS dt,
         UNIX_TIMESTAMP(ts) AS ut, FROM_UNIXTIME(UNIX_TIMESTAMP(ts)) AS whole
  FROM ev;

-- entry: date_functions
-- DATE columns: EXTRACT, arithmetic with INTERVALs across month ends and
-- the leap day, comparisons with DATE literals, DATE_FORMAT.
CREATE MATERIALIZED VIEW v AS
  SELECT id, day, EXTRACT(YEAR FROM day) AS y, EXTRACT(DAY FROM day) AS dd, EXTRACT(DOY FROM day) AS doy,
         EXTRACT(DOW FROM day) AS dow, day + INTERVAL 1 DAY AS next_day, day - INTERVAL '2' DAY AS before2,
         day >= DATE '2024-02-29' AS from_leap, DATE_FORMAT(day, '%Y/%m/%d') AS fmt, UNIX_TIMESTAMP(day) AS ut
  FROM ev;

-- entry: date_format
-- DATE_FORMAT with MySQL specifiers, including times before the epoch.
CREATE MATERIALIZED VIEW v AS
  SELECT id, DATE_FORMAT(ts, '%Y-%m-%d %H:%i:%s') AS full, DATE_FORMAT(ts, '%j|%T|%%') AS misc,
         DATE_FORMAT(ts, '%e.%k') AS short
  FROM ev;

-- entry: time_arithmetic_groups
-- Bids grouped by second and by 10-second bucket computed with
-- arithmetic on UNIX_TIMESTAMP; intervals added to times.
CREATE MATERIALIZED VIEW v AS
  SELECT UNIX_TIMESTAMP(date_time) DIV 10 AS bucket, COUNT(*) AS n,
         MIN(date_time + INTERVAL '250' MILLISECOND) AS first_plus, MAX(DATE_ADD(date_time, INTERVAL 2 HOUR)) AS last_plus,
         MIN(DATE_SUB(date_time, INTERVAL 30 SECOND)) AS first_minus
  FROM bid GROUP BY UNIX_TIMESTAMP(date_time) DIV 10;
