/**
 * Built-in server halves of predictors and the states they decode.
 * {@link dev.khameleon.core.predict.GaussianGridPredictor} integrates the Gaussian forecasts of a
 * pointer predictor (the client's Kalman filter) over a grid layout;
 * {@link dev.khameleon.core.predict.PointerForecast} is that state and owns its JSON form.
 */
package dev.khameleon.core.predict;
