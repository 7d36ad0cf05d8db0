// Command pulumi-language-nodejs runs Node.js Pulumi programs for the Pulumi engine.
//
// It stands in for the official Node.js language host, whose Go module the package proxy here
// does not serve. It implements the LanguageRuntime gRPC service of the same SDK release and
// runs programs through the `cmd/run` entry point that ships inside @pulumi/pulumi, exactly as
// the official host does. Plugin discovery is left to the engine: this host reports no
// required packages, which is right for programs whose only provider is the dynamic one.
// RunPlugin (plugin.go) runs plugins written in Node.js, such as policy packs. GenerateProgram
// (generate.go) turns PCL into TypeScript with the release's code generator, for
// `pulumi import` and `pulumi convert`.
//
// Installed as pulumi-language-python or pulumi-language-go (the same binary, named so), it is a
// stand-in for those hosts that exists only for the tests: it serves GenerateProgram in Python or
// Go, so `pulumi import` writes the program of a Python or Go project, and refuses to run
// programs (the tests run Python and Go programs through the Automation API's inline programs).
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"
)

// version is set at build time to the Pulumi release the host was built against.
var version = "3.248.0"

// exitAlreadyReported is the exit code @pulumi/pulumi's run script uses after it has reported
// the error to the engine itself, so the host must not report it again.
const exitAlreadyReported = 32

type host struct {
	pulumirpc.UnimplementedLanguageRuntimeServer
	engineAddress string
	// nodejs, python or go: from the name the host was started by.
	language string
}

// languageOf reads the language from the executable's name, pulumi-language-<language>.
func languageOf(executable string) string {
	switch strings.TrimPrefix(filepath.Base(executable), "pulumi-language-") {
	case "python":
		return "python"
	case "go":
		return "go"
	default:
		return "nodejs"
	}
}

func main() {
	args := os.Args[1:]
	engine := ""
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			engine = a
		}
	}
	cancel := make(chan bool)
	h := &host{engineAddress: engine, language: languageOf(os.Args[0])}
	handle, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Cancel: cancel,
		Init: func(srv *grpc.Server) error {
			pulumirpc.RegisterLanguageRuntimeServer(srv, h)
			return nil
		},
	})
	if err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-language-%s: %v\n", h.language, err)
		os.Exit(1)
	}
	// The engine reads the port from the first line of stdout.
	fmt.Printf("%d\n", handle.Port)
	if err := <-handle.Done; err != nil {
		fmt.Fprintf(os.Stderr, "pulumi-language-%s: %v\n", h.language, err)
		os.Exit(1)
	}
}

func (h *host) GetPluginInfo(context.Context, *emptypb.Empty) (*pulumirpc.PluginInfo, error) {
	return &pulumirpc.PluginInfo{Version: version}, nil
}

func (h *host) GetRequiredPlugins(context.Context, *pulumirpc.GetRequiredPluginsRequest) (*pulumirpc.GetRequiredPluginsResponse, error) {
	return &pulumirpc.GetRequiredPluginsResponse{}, nil
}

func (h *host) GetRequiredPackages(context.Context, *pulumirpc.GetRequiredPackagesRequest) (*pulumirpc.GetRequiredPackagesResponse, error) {
	return &pulumirpc.GetRequiredPackagesResponse{}, nil
}

func (h *host) Cancel(context.Context, *emptypb.Empty) (*emptypb.Empty, error) {
	return &emptypb.Empty{}, nil
}

func (h *host) Run(ctx context.Context, req *pulumirpc.RunRequest) (*pulumirpc.RunResponse, error) {
	if h.language != "nodejs" {
		return &pulumirpc.RunResponse{Error: fmt.Sprintf(
			"pulumi-language-%s here is a stand-in that only generates programs (pulumi import); run %s programs through the Automation API's inline programs",
			h.language, h.language)}, nil
	}
	programDir := req.GetPwd()
	rootDir := programDir
	entry := req.GetProgram()
	opts := map[string]any{}
	if info := req.GetInfo(); info != nil {
		if info.GetProgramDirectory() != "" {
			programDir = info.GetProgramDirectory()
		}
		if info.GetRootDirectory() != "" {
			rootDir = info.GetRootDirectory()
		}
		if info.GetEntryPoint() != "" {
			entry = info.GetEntryPoint()
		}
		if info.GetOptions() != nil {
			opts = info.GetOptions().AsMap()
		}
	}
	if entry == "" {
		entry = "."
	}

	runScript, err := resolveModule(ctx, programDir, "@pulumi/pulumi/cmd/run")
	if err != nil {
		return nil, err
	}
	runScript = filepath.Dir(runScript)

	cfg := req.GetConfig()
	if cfg == nil {
		cfg = map[string]string{}
	}
	config, err := json.Marshal(cfg)
	if err != nil {
		return nil, err
	}
	keys := req.GetConfigSecretKeys()
	if keys == nil {
		keys = []string{}
	}
	secretKeys, err := json.Marshal(keys)
	if err != nil {
		return nil, err
	}

	var nodeArgs []string
	if s, ok := opts["nodeargs"].(string); ok && s != "" {
		nodeArgs = strings.Fields(s)
	}
	args := append(nodeArgs, runScript)
	if req.GetMonitorAddress() != "" {
		args = append(args, "--monitor="+req.GetMonitorAddress())
	}
	if h.engineAddress != "" {
		args = append(args, "--engine="+h.engineAddress)
	}
	args = append(args,
		"--project="+req.GetProject(),
		"--stack="+req.GetStack(),
		"--pwd="+programDir,
		"--root-directory="+rootDir,
	)
	if req.GetOrganization() != "" {
		args = append(args, "--organization="+req.GetOrganization())
	}
	if req.GetDryRun() {
		args = append(args, "--dry-run")
	}
	if req.GetParallel() > 0 {
		args = append(args, "--parallel="+strconv.Itoa(int(req.GetParallel())))
	}
	args = append(args, entry)
	args = append(args, req.GetArgs()...)

	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Dir = programDir
	cmd.Stdout = os.Stdout
	cmd.Stderr = os.Stderr
	env := append(os.Environ(),
		"PULUMI_CONFIG="+string(config),
		"PULUMI_CONFIG_SECRET_KEYS="+string(secretKeys),
	)
	typescript := true
	if v, ok := opts["typescript"].(bool); ok {
		typescript = v
	}
	env = append(env, "PULUMI_NODEJS_TYPESCRIPT="+strconv.FormatBool(typescript))
	if p, ok := opts["tsconfig"].(string); ok && p != "" {
		env = append(env, "PULUMI_NODEJS_TSCONFIG_PATH="+filepath.Join(programDir, p))
	}
	cmd.Env = env

	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			if exit.ExitCode() == exitAlreadyReported {
				return &pulumirpc.RunResponse{Bail: true}, nil
			}
			return &pulumirpc.RunResponse{Error: fmt.Sprintf("Program exited with non-zero exit code: %d", exit.ExitCode())}, nil
		}
		return &pulumirpc.RunResponse{Error: err.Error()}, nil
	}
	return &pulumirpc.RunResponse{}, nil
}

// resolveModule finds a module (an entry point of @pulumi/pulumi) as the program in dir resolves
// it, so the program and the runtime share one copy of the SDK. It looks where Node would first
// (node_modules of dir and its parents, symlinks followed) and asks Node only when that fails: a
// node process per operation cost about 50 ms of CPU.
func resolveModule(ctx context.Context, dir, module string) (string, error) {
	if found := nodeModulesLookup(dir, module); found != "" {
		return found, nil
	}
	cmd := exec.CommandContext(ctx, "node", "-e", "process.stdout.write(require.resolve(process.argv[1]))", module)
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("cannot find %s from %s; install the program's dependencies first: %w", module, dir, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// nodeModulesLookup is Node's lookup of a package subpath without an "exports" map: <path>.js, then
// <path>/index.js, in the nearest node_modules that holds the package. "" when it is not there.
func nodeModulesLookup(dir, module string) string {
	parts := strings.SplitN(module, "/", 3)
	if len(parts) < 3 || !strings.HasPrefix(module, "@") {
		return "" // only a scoped package's subpath, such as @pulumi/pulumi/cmd/run
	}
	pkg := parts[0] + "/" + parts[1]
	abs, err := filepath.Abs(dir)
	if err != nil {
		return ""
	}
	for d := abs; ; d = filepath.Dir(d) {
		if filepath.Base(d) != "node_modules" {
			if manifest, err := os.ReadFile(filepath.Join(d, "node_modules", filepath.FromSlash(pkg), "package.json")); err == nil {
				if strings.Contains(string(manifest), `"exports"`) {
					return "" // an exports map: Node's rules, not these
				}
				base := filepath.Join(d, "node_modules", filepath.FromSlash(module))
				if _, err := os.Stat(filepath.Join(base, "package.json")); err == nil {
					return "" // a folder with its own main: Node's rules, not these
				}
				for _, candidate := range []string{base + ".js", filepath.Join(base, "index.js")} {
					if st, err := os.Stat(candidate); err == nil && !st.IsDir() {
						if real, err := filepath.EvalSymlinks(candidate); err == nil {
							return real
						}
					}
				}
				return ""
			}
		}
		if parent := filepath.Dir(d); parent == d {
			return ""
		}
	}
}
