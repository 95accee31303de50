package dev.khameleon.client;

/**
 * The application's callback for one registered request: called with the usable prefix of
 * the response as soon as there is one, then again each time the prefix grows, the last time
 * with the complete response.
 *
 * <p>Calls for one registration never overlap and come in order of growing prefix. They run
 * on the upcall executor the client or cache manager was built with (never on the network
 * thread unless that executor is a direct one). An exception thrown here is caught, logged
 * and counted in {@link ClientMetrics#upcallFailures()}; it affects nothing else.
 */
@FunctionalInterface
public interface Upcall {

    /** Receives the current usable answer for the request. */
    void onResponse(Response response);
}
