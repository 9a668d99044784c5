package devenv

import (
	"io"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/go-logr/logr"
	"go.uber.org/zap/zapcore"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/log/zap"
)

// LogFileName is the file under the data folder that receives the JSON logs.
const LogFileName = "swaprouter.log"

// SetupLogging keeps the terminal for the summary, the way kind and tilt do: every log line
// (controllers, frontend, app, simulator, client-go) goes as JSON to the data folder's log
// file, or, with verbose, human-readable to console. It returns a func that closes the file.
func SetupLogging(dataDir string, verbose bool, console io.Writer) (func(), error) {
	var logger logr.Logger
	var slogHandler slog.Handler
	closeFile := func() {}
	if verbose {
		logger = zap.New(zap.WriteTo(console), zap.UseDevMode(true))
		slogHandler = slog.NewTextHandler(console, nil)
	} else {
		f, err := os.OpenFile(filepath.Join(dataDir, LogFileName), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			return nil, err
		}
		closeFile = func() { _ = f.Close() }
		logger = zap.New(zap.WriteTo(f), zap.Level(zapcore.DebugLevel))
		slogHandler = slog.NewJSONHandler(f, &slog.HandlerOptions{Level: slog.LevelDebug})
	}
	ctrl.SetLogger(logger)
	klog.SetLogger(logger)
	slog.SetDefault(slog.New(slogHandler))
	return closeFile, nil
}
