package dev.khameleon.server;

import dev.khameleon.core.testkit.ApiListing;
import org.junit.jupiter.api.Test;

/** The public API of khameleon-server is the committed api/khameleon-server.api (docs/releasing.md). */
class ApiListingTest {
    @Test
    void publicApiIsTheCommittedListing() throws Exception {
        ApiListing.assertMatches("khameleon-server");
    }
}
