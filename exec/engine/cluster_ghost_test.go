package engine

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	kafkamsg "github.com/twmb/franz-go/pkg/kmsg"
)

// TestClusterDropsMembersTheBrokerKeeps: a member killed between its
// JoinGroup and the broker's answer stays in the group for good on kfake
// (it never gets a session timer), holding its tasks, and the views stop
// short. The members' watchdog finds it, in some but not all of the
// groups, and rejoins those groups, which drops it; the views then
// answer what a single engine does. The ghost here is in two of a
// four-fragment query's groups, as a crashed member was in CI.
func TestClusterDropsMembersTheBrokerKeeps(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a cluster of two members")
	}
	brokers := kafkaCluster(t, 12, "bids", "auctions")
	m0 := clusterMember(t, brokers, "c4", "m0")
	defer m0.Close()
	m1 := clusterMember(t, brokers, "c4", "m1")
	defer m1.Close()
	run(t, m0.NewSession(SessionOptions{}), "SET checkpoint_interval = '200ms';"+fmt.Sprintf(clusterDDL, "connector = 'kafka', brokers = '"+brokers+"'"))
	produceBids(t, brokers, 0, 600)
	converge(t, expectedViews(t, brokers), m0, m1)

	// The query with the most fragments is per_category's join.
	adm, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(brokers, ",")...))
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	listed, err := kadm.NewClient(adm).ListGroups(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	byQuery := map[string][]string{}
	name := regexp.MustCompile(`^(_eddy-c4-q\d+)-f\d+$`)
	for _, g := range listed.Groups() {
		if m := name.FindStringSubmatch(g); m != nil {
			byQuery[m[1]] = append(byQuery[m[1]], g)
		}
	}
	var groups []string
	for _, gs := range byQuery {
		if len(gs) > len(groups) {
			groups = gs
		}
	}
	if len(groups) != 4 {
		t.Fatalf("per_category's groups: %v (all: %v)", groups, byQuery)
	}
	slices.Sort(groups)
	var dies []func()
	for _, g := range groups[2:] {
		dies = append(dies, stuckMember(t, brokers, g))
	}
	for _, die := range dies {
		die()
	}
	produceBids(t, brokers, 600, 1200)
	converge(t, expectedViews(t, brokers), m0, m1)
	for _, g := range groups {
		d, err := kadm.NewClient(adm).DescribeGroups(context.Background(), g)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range d[g].Members {
			if strings.HasPrefix(m.ClientID, "ghost") {
				t.Errorf("group %s still holds the ghost", g)
			}
		}
	}
}

// stuckMember prepares a member stuck in group for good, holding
// partitions, as kfake keeps a new member killed between its JoinGroup
// and the broker's answer (such a member has no session timer): a first
// consumer takes part in the group's rebalances until it owns
// partitions. The function it returns has a second consumer ask for a
// member ID; the first leaves, freeing its partitions; the second joins
// the rebalance that starts and closes its connection while the broker
// holds its JoinGroup. The leader gives it the free partitions, and no
// round follows that would drop it.
func stuckMember(t *testing.T, brokers, group string) (die func()) {
	t.Helper()
	owner := newGhost(t, brokers, group, "ghost/owner")
	owner.join(t)
	owner.own(t)
	stop, beating := make(chan struct{}), make(chan struct{})
	go func() { // the owner's heartbeats, until it leaves
		defer close(beating)
		for {
			select {
			case <-stop:
				return
			case <-time.After(500 * time.Millisecond):
			}
			hb := kafkamsg.NewPtrHeartbeatRequest()
			hb.Group, hb.Generation, hb.MemberID = group, owner.meta.Generation, owner.req.MemberID
			hb.RequestWith(context.Background(), owner.cl)
		}
	}()
	return func() {
		dead := newGhost(t, brokers, group, "ghost/dead")
		dead.join(t)
		close(stop)
		<-beating
		leave := kafkamsg.NewPtrLeaveGroupRequest()
		leave.Group, leave.MemberID = group, owner.req.MemberID
		leave.Members = []kafkamsg.LeaveGroupRequestMember{{MemberID: owner.req.MemberID}}
		if _, err := leave.RequestWith(context.Background(), owner.cl); err != nil {
			t.Fatal(err)
		}
		owner.cl.Close()
		go dead.req.RequestWith(context.Background(), dead.cl) // held until the members rejoin; fails once closed
		time.Sleep(200 * time.Millisecond)
		dead.cl.Close()
	}
}

// ghost is a consumer group member the test drives request by request.
type ghost struct {
	cl    *kgo.Client
	group string
	meta  *kafkamsg.ConsumerMemberMetadata
	req   *kafkamsg.JoinGroupRequest
}

// newGhost makes a member of group with its members' subscription.
func newGhost(t *testing.T, brokers, group, id string) *ghost {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(brokers, ",")...), kgo.ClientID(id))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	d, err := kadm.NewClient(cl).DescribeGroups(context.Background(), group)
	if err != nil || len(d[group].Members) == 0 {
		t.Fatalf("describing %s: %v %v", group, err, d)
	}
	live, ok := d[group].Members[0].Join.AsConsumer()
	if !ok {
		t.Fatalf("%s's member is not a consumer", group)
	}
	g := &ghost{cl: cl, group: group, meta: new(kafkamsg.ConsumerMemberMetadata), req: kafkamsg.NewPtrJoinGroupRequest()}
	g.meta.Version, g.meta.Topics = live.Version, live.Topics
	g.req.Group, g.req.ProtocolType = group, "consumer"
	// A session long enough for a loaded machine; the ghost that dies
	// never starts its timer anyway.
	g.req.SessionTimeoutMillis, g.req.RebalanceTimeoutMillis = 30000, 6000
	g.req.Protocols = g.protocols()
	return g
}

func (g *ghost) protocols() []kafkamsg.JoinGroupRequestProtocol {
	return []kafkamsg.JoinGroupRequestProtocol{{Name: "cooperative-sticky", Metadata: g.meta.AppendTo(nil)}}
}

// join asks for a member ID, which makes the ghost a pending member.
func (g *ghost) join(t *testing.T) {
	t.Helper()
	resp, err := g.req.RequestWith(context.Background(), g.cl)
	if err != nil || resp.MemberID == "" {
		t.Fatalf("joining %s: %v (error code %d)", g.group, err, resp.ErrorCode)
	}
	g.req.MemberID = resp.MemberID
}

// own takes part in the group's rebalances until the ghost owns
// partitions.
func (g *ghost) own(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	for deadline := time.Now().Add(2 * time.Minute); ; {
		if time.Now().After(deadline) {
			// The stuck member could not be set up: what the test
			// checks never happened, so it says nothing either way.
			t.Skipf("kfake gave %s no partition of %s in 2 minutes: the stuck member could not be set up",
				g.cl.OptValue(kgo.ClientID), g.group)
		}
		g.req.Protocols = g.protocols()
		jr, err := g.req.RequestWith(ctx, g.cl)
		if err == nil && jr.ErrorCode == kerr.UnknownMemberID.Code {
			// Dropped (a slow machine missed the session): a new member.
			g.req.MemberID = ""
			g.join(t)
			continue
		}
		if err != nil || jr.ErrorCode != 0 {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		sync := kafkamsg.NewPtrSyncGroupRequest()
		sync.Group, sync.Generation, sync.MemberID = g.group, jr.Generation, g.req.MemberID
		sync.ProtocolType, sync.Protocol = kafkamsg.StringPtr("consumer"), jr.Protocol
		sr, err := sync.RequestWith(ctx, g.cl)
		if err != nil || sr.ErrorCode != 0 {
			continue
		}
		var a kafkamsg.ConsumerMemberAssignment
		if err := a.ReadFrom(sr.MemberAssignment); err != nil {
			t.Fatal(err)
		}
		g.meta.Generation, g.meta.OwnedPartitions = jr.Generation, nil
		for _, tp := range a.Topics {
			g.meta.OwnedPartitions = append(g.meta.OwnedPartitions, kafkamsg.ConsumerMemberMetadataOwnedPartition{Topic: tp.Topic, Partitions: tp.Partitions})
		}
		if len(g.meta.OwnedPartitions) > 0 {
			return
		}
		// Cooperative rebalancing hands partitions over in a second
		// round, which a heartbeat hears of.
		for {
			time.Sleep(200 * time.Millisecond)
			hb := kafkamsg.NewPtrHeartbeatRequest()
			hb.Group, hb.Generation, hb.MemberID = g.group, jr.Generation, g.req.MemberID
			if hr, err := hb.RequestWith(ctx, g.cl); err != nil || hr.ErrorCode != 0 || time.Now().After(deadline) {
				break
			}
		}
	}
}
