package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/pulumi/pulumi/pkg/v3/codegen/schema"
	"github.com/pulumi/pulumi/sdk/v3/go/common/util/rpcutil"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	codegenrpc "github.com/pulumi/pulumi/sdk/v3/proto/go/codegen"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// yamlHost is the YAML language host's program generator. pulumi-yaml's codegen needs a newer
// pulumi/pkg than the SDK generators here, so it runs as its own process (`make tools` builds
// pulumi-language-yaml beside sdkgen), reached over gRPC as `pulumi convert` reaches it, with
// this package's schema served by a loader.
type yamlHost struct {
	cmd    *exec.Cmd
	conn   *grpc.ClientConn
	client pulumirpc.LanguageRuntimeClient
	loader rpcutil.ServeHandle
	cancel chan bool
}

func startYAMLHost(pkg *schema.Package) (*yamlHost, error) {
	path := os.Getenv("PULUMI_LANGUAGE_YAML")
	if path == "" {
		self, err := os.Executable()
		if err != nil {
			return nil, err
		}
		path = filepath.Join(filepath.Dir(self), "pulumi-language-yaml")
	}
	h := &yamlHost{cancel: make(chan bool)}
	loader, err := rpcutil.ServeWithOptions(rpcutil.ServeOptions{
		Cancel: h.cancel,
		Init: func(srv *grpc.Server) error {
			codegenrpc.RegisterLoaderServer(srv, schema.NewLoaderServer(pkgLoader{pkg}))
			return nil
		},
	})
	if err != nil {
		return nil, fmt.Errorf("serving the schema loader: %w", err)
	}
	h.loader = loader
	h.cmd = exec.Command(path)
	h.cmd.Stderr = os.Stderr
	stdout, err := h.cmd.StdoutPipe()
	if err != nil {
		h.close()
		return nil, err
	}
	if err := h.cmd.Start(); err != nil {
		h.close()
		return nil, fmt.Errorf("starting %s (make tools builds it): %w", path, err)
	}
	// The host prints the port it serves on, then nothing more.
	port, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		h.close()
		return nil, fmt.Errorf("%s printed no port: %w", path, err)
	}
	h.conn, err = grpc.NewClient("127.0.0.1:"+strings.TrimSpace(port), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		h.close()
		return nil, err
	}
	h.client = pulumirpc.NewLanguageRuntimeClient(h.conn)
	return h, nil
}

// generate turns one PCL program into YAML.
func (h *yamlHost) generate(name, source string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := h.client.GenerateProgram(ctx, &pulumirpc.GenerateProgramRequest{
		Source:       map[string]string{name + ".pp": source},
		LoaderTarget: fmt.Sprintf("127.0.0.1:%d", h.loader.Port),
		Strict:       true,
	})
	if err != nil {
		return "", fmt.Errorf("%s (yaml): %w", name, err)
	}
	for _, d := range resp.Diagnostics {
		if d.Severity == codegenrpc.DiagnosticSeverity_DIAG_ERROR {
			return "", fmt.Errorf("%s (yaml): %s: %s", name, d.Summary, d.Detail)
		}
	}
	if len(resp.Source) != 1 {
		return "", fmt.Errorf("%s (yaml): expected one file, got %d", name, len(resp.Source))
	}
	for _, content := range resp.Source {
		return string(content), nil
	}
	return "", nil
}

func (h *yamlHost) close() {
	if h.conn != nil {
		h.conn.Close()
	}
	if h.cmd != nil && h.cmd.Process != nil {
		_ = h.cmd.Process.Kill()
		_ = h.cmd.Wait()
	}
	close(h.cancel)
}
