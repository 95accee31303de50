package dev.khameleon.simulator.predict;

import dev.khameleon.simulator.predict.ForecastCalibration.Summary;
import dev.khameleon.simulator.predict.ForecastCalibration.TraceCalibration;
import dev.khameleon.simulator.report.CsvReporter;
import dev.khameleon.simulator.report.TableReporter;
import java.util.ArrayList;
import java.util.List;

/**
 * Formats forecast calibrations (errors, coverages and the server predictor's mass on the true
 * cell): Markdown tables (one row per trace, then one per kind, state and
 * horizon over all traces of the kind) and a CSV that adds each trace's own rows. Stateless.
 */
final class CalibrationReport {
    /**
     * The CSV header; coverages are fractions, the nominal columns those of a calibrated Gaussian;
     * masses are probabilities, {@code true_cell_explicit} a fraction of instants.
     */
    static final String CSV_HEADER = "trace,kind,state,horizon_ms,n,median_error_px,p90_error_px,median_sigma_px,"
            + "coverage_1sigma,coverage_2sigma,nominal_1sigma,nominal_2sigma,"
            + "mean_mass_true_cell,median_mass_true_cell,mean_log_likelihood,true_cell_explicit,uniform_mass";

    private static final String NOMINAL = pct(ForecastCalibration.NOMINAL_1_SIGMA) + " / "
            + pct(ForecastCalibration.NOMINAL_2_SIGMA);

    private CalibrationReport() {
    }

    /** The per-trace table and the per-kind calibration table, in Markdown. */
    static String markdown(List<TraceCalibration> traces) {
        List<List<String>> rows = new ArrayList<>();
        for (TraceCalibration c : traces) {
            rows.add(List.of(c.name(), c.kind().label, String.valueOf(c.samples()),
                    CsvReporter.num(c.medianIntervalMillis(), 1), String.valueOf(c.instants().size()),
                    String.valueOf(c.atRest())));
        }
        StringBuilder sb = new StringBuilder(TableReporter.markdown(List.of("trace", "kind", "samples",
                "median interval ms", "instants", "at rest"), rows)).append('\n');
        rows = new ArrayList<>();
        for (Summary s : ForecastCalibration.summaries(traces, false)) {
            rows.add(List.of(s.kind().label, s.state().label, String.valueOf(s.horizonMillis()),
                    String.valueOf(s.count()), CsvReporter.num(s.medianErrorPx(), 1),
                    CsvReporter.num(s.p90ErrorPx(), 1), CsvReporter.num(s.medianSigmaPx(), 1),
                    pct(s.coverage1Sigma()), pct(s.coverage2Sigma()), NOMINAL,
                    CsvReporter.num(s.meanMass(), 4) + " / " + CsvReporter.num(s.medianMass(), 4),
                    CsvReporter.num(s.meanLogLikelihood(), 2), pct(s.trueCellExplicit()),
                    CsvReporter.num(s.uniformMass(), 4)));
        }
        return sb.append(TableReporter.markdown(List.of("kind", "state", "horizon ms", "n", "median err px",
                "p90 err px", "median σ px", "in 1σ %", "in 2σ %", "nominal 1σ / 2σ %",
                "mass on true cell (mean / median)", "log-lik", "explicit %", "uniform mass"), rows)).toString();
    }

    /** The CSV: a header, then per kind its {@code all} rows and each trace's rows. */
    static String csv(List<TraceCalibration> traces) {
        StringBuilder sb = new StringBuilder(CSV_HEADER).append('\n');
        for (Summary s : ForecastCalibration.summaries(traces, true)) {
            sb.append(String.join(",", quoted(s.scope()), s.kind().label, s.state().label,
                    String.valueOf(s.horizonMillis()), String.valueOf(s.count()), CsvReporter.num(s.medianErrorPx(), 3),
                    CsvReporter.num(s.p90ErrorPx(), 3), CsvReporter.num(s.medianSigmaPx(), 3),
                    CsvReporter.num(s.coverage1Sigma(), 4), CsvReporter.num(s.coverage2Sigma(), 4),
                    CsvReporter.num(ForecastCalibration.NOMINAL_1_SIGMA, 4),
                    CsvReporter.num(ForecastCalibration.NOMINAL_2_SIGMA, 4), CsvReporter.num(s.meanMass(), 6),
                    CsvReporter.num(s.medianMass(), 6), CsvReporter.num(s.meanLogLikelihood(), 4),
                    CsvReporter.num(s.trueCellExplicit(), 4), CsvReporter.num(s.uniformMass(), 6))).append('\n');
        }
        return sb.toString();
    }

    private static String pct(double fraction) {
        return CsvReporter.num(100 * fraction, 1);
    }

    /** A trace name as one CSV field: file names may hold commas or quotes. */
    private static String quoted(String s) {
        return '"' + s.replace("\"", "\"\"") + '"';
    }
}
