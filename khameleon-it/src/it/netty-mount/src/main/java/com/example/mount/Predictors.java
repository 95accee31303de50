package com.example.mount;

import dev.khameleon.core.Distribution;
import dev.khameleon.core.spi.ClientPredictor;
import dev.khameleon.core.spi.ServerPredictor;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The charts' predictor pair, written against the state's JSON text: the client half sends the
 * last hovered chart, the server half predicts that chart.
 */
public final class Predictors {
    static final Pattern REQUEST = Pattern.compile("\\{\"request\":(\\d{1,9})}");

    private Predictors() {
    }

    /** The server half: decodes {@code {"request": id}} into a point distribution on {@code id}. */
    public static ServerPredictor serverHalf(int n, long... horizons) {
        return ServerPredictor.fromJsonText(json -> {   // the state as compact JSON text
            Matcher m = REQUEST.matcher(json);          // or Gson, JSON-P, org.json, …
            if (!m.matches() || Integer.parseInt(m.group(1)) >= n) {
                throw new IllegalArgumentException("state must be {\"request\": id} with id < " + n
                        + ", was " + json);
            }
            return Distribution.point(n, Integer.parseInt(m.group(1)), horizons);
        });
    }

    /** The client half: the state is the last hovered chart (0 before any hover). */
    public static ClientPredictor<Integer> clientHalf() {
        int[] last = {0};
        return ClientPredictor.fromJsonText(hovered -> last[0] = hovered,
                nowMillis -> "{\"request\": " + last[0] + "}");
    }
}
