-- q12 counts bids per bidder in 10-second windows of processing time, so
-- which window a bid lands in depends on when eddy read it. What does not:
-- every bid is counted in exactly one window, so summing bid_count per
-- bidder over all windows gives the bidder's number of bids. The test
-- compares that sum with this query (and checks each window is 10 s long
-- and aligned to 10 s).
SELECT bidder, COUNT(*) AS bid_count
FROM bid
GROUP BY bidder
