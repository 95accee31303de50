/**
 * Bench tools for the pointer predictor: the {@code forecast} subcommand
 * ({@link dev.khameleon.simulator.predict.ForecastCommand}) replays recorded pointer traces through
 * the client's Kalman predictor and reports, per horizon and trace kind, how far the forecast mean
 * lands from the true position and whether the forecast's Gaussian ellipses cover it as often as
 * a calibrated Gaussian would. {@code ForecastCalibration} computes, {@code CalibrationReport}
 * formats.
 */
package dev.khameleon.simulator.predict;
