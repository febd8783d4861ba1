// Package devserver runs an embedded, single-process Temporal server persisted to a SQLite file.
//
// It exists so that `partnerd serve` needs nothing installed. Only cmd imports it: the server
// costs minutes of cold build, and no other package's tests should link it.
package devserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"go.temporal.io/server/common/authorization"
	"go.temporal.io/server/common/cluster"
	"go.temporal.io/server/common/config"
	"go.temporal.io/server/common/dynamicconfig"
	sqliteplugin "go.temporal.io/server/common/persistence/sql/sqlplugin/sqlite"
	sqliteschema "go.temporal.io/server/schema/sqlite"
	"go.temporal.io/server/temporal"
)

const (
	clusterName     = "active"
	clusterID       = "5b0c1e52-7d4a-4c52-9a36-0f1d8a3e2b7c" // fixed: one embedded cluster per data directory
	failoverVersion = 1
)

// Options configures the embedded server.
type Options struct {
	// DataDir holds the server's SQLite file (temporal.db). Required.
	DataDir string
	// IP the frontend binds to; defaults to 127.0.0.1.
	IP string
	// Port of the frontend gRPC service; defaults to 7233.
	Port int
	// Namespaces registered at start (idempotent); defaults to ["default"].
	Namespaces []string
	// Logger receives the server's logs. Required.
	Logger *slog.Logger
	// LogLevel is the lowest level passed on from the server; it is chatty below Warn.
	LogLevel slog.Level
}

// Server is a running embedded Temporal server.
type Server struct {
	srv      temporal.Server
	logger   temporalLogger
	address  string
	stopOnce sync.Once
}

// DatabaseFile is the path of the server's SQLite file inside dataDir.
func DatabaseFile(dataDir string) string {
	return filepath.Join(dataDir, "temporal.db")
}

// Start builds and starts the server; it returns once the frontend accepts connections.
func Start(ctx context.Context, opts Options) (*Server, error) {
	if opts.DataDir == "" {
		return nil, errors.New("devserver: DataDir is required")
	}
	if opts.Logger == nil {
		return nil, errors.New("devserver: Logger is required")
	}
	if opts.IP == "" {
		opts.IP = "127.0.0.1"
	}
	if opts.Port == 0 {
		opts.Port = 7233
	}
	if len(opts.Namespaces) == 0 {
		opts.Namespaces = []string{"default"}
	}
	if err := os.MkdirAll(opts.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("devserver: create data dir: %w", err)
	}
	address := net.JoinHostPort(opts.IP, strconv.Itoa(opts.Port))
	if err := portFree(address); err != nil {
		return nil, fmt.Errorf("devserver: frontend address %s is taken (set PARTNERD_TEMPORAL_PORT): %w", address, err)
	}

	sqlConf, err := prepareDatabase(DatabaseFile(opts.DataDir), opts.Namespaces)
	if err != nil {
		return nil, err
	}
	conf, err := serverConfig(opts, sqlConf)
	if err != nil {
		return nil, err
	}
	logger := newTemporalLogger(opts.Logger, opts.LogLevel)
	authorizer, err := authorization.GetAuthorizerFromConfig(&conf.Global.Authorization)
	if err != nil {
		return nil, fmt.Errorf("devserver: authorizer: %w", err)
	}
	claimMapper, err := authorization.GetClaimMapperFromConfig(&conf.Global.Authorization, logger)
	if err != nil {
		return nil, fmt.Errorf("devserver: claim mapper: %w", err)
	}
	srv, err := temporal.NewServer(
		temporal.WithConfig(conf),
		temporal.WithDynamicConfigClient(dynamicConfig()),
		temporal.ForServices(temporal.DefaultServices),
		temporal.WithLogger(logger),
		temporal.WithAuthorizer(authorizer),
		temporal.WithClaimMapper(func(*config.Config) authorization.ClaimMapper { return claimMapper }),
	)
	if err != nil {
		return nil, fmt.Errorf("devserver: build server: %w", err)
	}
	if err := srv.Start(); err != nil {
		return nil, fmt.Errorf("devserver: start: %w", err)
	}
	s := &Server{srv: srv, logger: logger, address: address}
	if err := waitListening(ctx, address); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

// Address is the frontend host:port clients dial.
func (s *Server) Address() string { return s.address }

// Stop stops every service of the server; it is safe to call more than once.
func (s *Server) Stop() {
	s.stopOnce.Do(func() {
		s.logger.stopping.Store(true)
		_ = s.srv.Stop()
	})
}

func prepareDatabase(file string, namespaces []string) (*config.SQL, error) {
	conf := &config.SQL{
		PluginName:   sqliteplugin.PluginName,
		DatabaseName: file,
		// Every attribute but mode is a pragma, named without a leading underscore: the plugin
		// passes "_journal_mode" on as an unknown pragma, which SQLite ignores, and the file
		// stayed in rollback-journal mode with a full sync, creating, syncing and deleting a
		// journal on every commit. In WAL mode with synchronous=normal a commit syncs nothing
		// (the WAL is synced at checkpoints); a crash of the process loses no commit.
		ConnectAttributes: map[string]string{
			"mode":         "rwc",
			"journal_mode": "wal",
			"synchronous":  "normal",
			"busy_timeout": "10000",
		},
	}
	if _, err := os.Stat(file); errors.Is(err, os.ErrNotExist) {
		if err := sqliteschema.SetupSchema(conf); err != nil {
			_ = os.Remove(file)
			return nil, fmt.Errorf("devserver: set up schema: %w", err)
		}
	} else if err != nil {
		return nil, fmt.Errorf("devserver: stat database: %w", err)
	}
	nsConfigs := make([]*sqliteschema.NamespaceConfig, 0, len(namespaces))
	for _, ns := range namespaces {
		c, err := sqliteschema.NewNamespaceConfig(clusterName, ns, false, nil)
		if err != nil {
			return nil, fmt.Errorf("devserver: namespace %q: %w", ns, err)
		}
		nsConfigs = append(nsConfigs, c)
	}
	if err := sqliteschema.CreateNamespaces(conf, nsConfigs...); err != nil {
		return nil, fmt.Errorf("devserver: create namespaces: %w", err)
	}
	return conf, nil
}

func serverConfig(opts Options, sqlConf *config.SQL) (*config.Config, error) {
	var conf config.Config
	conf.Global.Membership.MaxJoinDuration = 30 * time.Second
	conf.Global.Membership.BroadcastAddress = "127.0.0.1"
	conf.Persistence.DefaultStore = "sqlite"
	conf.Persistence.VisibilityStore = "sqlite"
	conf.Persistence.NumHistoryShards = 1
	conf.Persistence.DataStores = map[string]config.DataStore{"sqlite": {SQL: sqlConf}}
	conf.ClusterMetadata = &cluster.Config{
		EnableGlobalNamespace:    false,
		FailoverVersionIncrement: 10,
		MasterClusterName:        clusterName,
		CurrentClusterName:       clusterName,
		ClusterInformation: map[string]cluster.ClusterInformation{
			clusterName: {
				Enabled:                true,
				InitialFailoverVersion: failoverVersion,
				RPCAddress:             net.JoinHostPort("127.0.0.1", strconv.Itoa(opts.Port)),
				ClusterID:              clusterID,
			},
		},
	}
	conf.DCRedirectionPolicy.Policy = "noop"

	ports, err := internalPorts(opts.DataDir)
	if err != nil {
		return nil, err
	}
	conf.Services = map[string]config.Service{
		"frontend": {RPC: config.RPC{GRPCPort: opts.Port, BindOnIP: opts.IP, MembershipPort: ports[0]}},
		"history":  {RPC: config.RPC{GRPCPort: ports[1], BindOnLocalHost: true, MembershipPort: ports[2]}},
		"matching": {RPC: config.RPC{GRPCPort: ports[3], BindOnLocalHost: true, MembershipPort: ports[4]}},
		"worker":   {RPC: config.RPC{GRPCPort: ports[5], BindOnLocalHost: true, MembershipPort: ports[6]}},
	}
	conf.Archival.History.State = "disabled"
	conf.Archival.Visibility.State = "disabled"
	conf.NamespaceDefaults.Archival.History.State = "disabled"
	conf.NamespaceDefaults.Archival.Visibility.State = "disabled"
	conf.PublicClient.HostPort = net.JoinHostPort("127.0.0.1", strconv.Itoa(opts.Port))
	return &conf, nil
}

// dynamicConfig sizes the history service's cache of workflow states for a server inside one
// process rather than a cluster's history host: the defaults keep every workflow touched in the
// last hour (up to 128 000), so memory grew with every webhook delivery, run and hold for an hour.
// A state not used for historyCacheTTL is dropped (by a sweep each minute) and read again from the
// database at its workflow's next task.
func dynamicConfig() *dynamicconfig.MemoryClient {
	dc := dynamicconfig.NewMemoryClient()
	dc.OverrideSetting(dynamicconfig.HistoryCacheTTL, historyCacheTTL)
	dc.OverrideSetting(dynamicconfig.HistoryCacheHostLevelMaxSize, historyCacheEntries)
	dc.OverrideSetting(dynamicconfig.HistoryCacheBackgroundEvict, dynamicconfig.CacheBackgroundEvictSettings{
		Enabled: true, LoopInterval: time.Minute, MaxEntryPerCall: historyCacheEntries,
	})
	return dc
}

// The history cache of the embedded server: how long an unused workflow state stays, and how
// many stay at most.
const (
	historyCacheTTL     = 5 * time.Minute
	historyCacheEntries = 4096
)

// internalPorts returns the ports of the internal services and of membership. The kernel hands
// them out on first start, so that several servers (parallel tests, two local instances)
// coexist; they are kept in the data directory and reused on restart, because the cluster
// membership recorded in the database names them and a server that comes back on other ports
// waits for its former members to time out.
func internalPorts(dataDir string) ([]int, error) {
	const n = 7
	file := filepath.Join(dataDir, "temporal-ports.json")
	var ports []int
	if b, err := os.ReadFile(file); err == nil && json.Unmarshal(b, &ports) == nil && len(ports) == n && allFree(ports) {
		return ports, nil
	}
	ports, err := freePorts(n)
	if err != nil {
		return nil, fmt.Errorf("devserver: reserve internal ports: %w", err)
	}
	b, _ := json.Marshal(ports)
	if err := os.WriteFile(file, b, 0o600); err != nil {
		return nil, fmt.Errorf("devserver: record internal ports: %w", err)
	}
	return ports, nil
}

func allFree(ports []int) bool {
	for _, p := range ports {
		if portFree(net.JoinHostPort("127.0.0.1", strconv.Itoa(p))) != nil {
			return false
		}
	}
	return true
}

// freePorts asks the kernel for n distinct free loopback ports. All listeners stay open until
// every port is chosen, so the n ports differ from each other.
func freePorts(n int) ([]int, error) {
	listeners := make([]net.Listener, 0, n)
	defer func() {
		for _, l := range listeners {
			_ = l.Close()
		}
	}()
	ports := make([]int, 0, n)
	for range n {
		l, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		listeners = append(listeners, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func portFree(address string) error {
	l, err := (&net.ListenConfig{}).Listen(context.Background(), "tcp", address)
	if err != nil {
		return err
	}
	return l.Close()
}

func waitListening(ctx context.Context, address string) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	var d net.Dialer
	for {
		conn, err := d.DialContext(ctx, "tcp", address)
		if err == nil {
			return conn.Close()
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("devserver: frontend %s not listening: %w", address, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}
