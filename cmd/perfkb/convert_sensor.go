package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/sensor"
)

func init() { registerConvert(newConvertSensorCmd) }

func newConvertSensorCmd(app *App) *cobra.Command {
	var cf *convertFlags
	var opt sensor.Options
	cmd := &cobra.Command{
		Use:   "sensor [flags] FILE|-...",
		Short: "Convert SCALEA-G sensor data (sensorinit/sensordataentry/sensorfinal XML messages)",
		Long: `Convert SCALEA-G sensor data files: the XML messages of the sensor
protocol (sensorinit, sensordataentry with its data in CDATA, sensorfinal)
as sent over TCP — concatenated, wrapped in one root element, or a bare
<sensordata> document. "-" reads standard input.

path.bandwidth.capacity.TCP data becomes PathBandwidthMeasurements of a
NetworkPath, host.cpu.used and host.mem.used HostMeasurements, application
profiling data (app.profiling) region summaries with their metrics, and any
other sensor's data a SensorMeasurement with one name/value field per leaf.
The shipped rules (low_network_bandwidth, --rules MONITORING) read the
result unchanged. A malformed message stops the conversion with its
FILE:LINE:COLUMN and leaves the store unchanged.`,
		Example: `  perfkb convert sensor --base http://perfkb.example/site/innsbruck/ bandwidth.xml
  perfkb convert sensor --base http://perfkb.example/site/innsbruck/ -o sensors.nt *.xml
  cat stream.xml | perfkb convert sensor --base http://perfkb.example/site/innsbruck/ -`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError(errors.New("convert sensor needs at least one FILE (or - for standard input)"))
			}
			for _, a := range args {
				if a == "-" {
					continue
				}
				if st, err := os.Stat(a); err != nil {
					return usageError(fmt.Errorf("cannot read %s: %w", a, err))
				} else if st.IsDir() {
					return usageError(fmt.Errorf("%s is a directory", a))
				}
			}
			return runConversion(cmd.Context(), app, cf, "sensor", func(ctx context.Context, base convert.Base, sink convert.Sink) (convert.Report, error) {
				c := sensor.New(sensor.Files(args...), base, opt)
				if app.Stdin != nil {
					c.Stdin = app.Stdin
				}
				return c.Convert(ctx, sink)
			})
		},
	}
	cf = addConvertFlags(cmd)
	cmd.Flags().StringVar(&opt.Manager, "manager", "default", "key of the Sensor Manager the sensor instances are managed by (<base>sensormanager/KEY)")
	return cmd
}
