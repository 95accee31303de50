package dev.khameleon.spring;

import jakarta.servlet.ServletContext;
import jakarta.servlet.ServletRegistration;
import org.junit.jupiter.api.Test;

import java.lang.reflect.Proxy;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which servlet mappings carry an application path to the web server's WebSocket filter. */
class ServletMappingTest {

    /** A servlet context whose only servlet has {@code mappings}. */
    private static ServletContext mapping(String... mappings) {
        ServletRegistration registration = (ServletRegistration) Proxy.newProxyInstance(
                ServletMappingTest.class.getClassLoader(), new Class<?>[] {ServletRegistration.class},
                (proxy, method, args) -> method.getName().equals("getMappings") ? List.of(mappings) : null);
        return (ServletContext) Proxy.newProxyInstance(ServletMappingTest.class.getClassLoader(),
                new Class<?>[] {ServletContext.class},
                (proxy, method, args) -> method.getName().equals("getServletRegistrations")
                        ? Map.of("servlet", registration) : null);
    }

    @Test
    void defaultAndCatchAllMappings_coverEveryPath() {
        assertTrue(ServletWebServerMount.servletMaps(mapping("/"), "/charts"));
        assertTrue(ServletWebServerMount.servletMaps(mapping("/*"), "/charts"));
    }

    @Test
    void exactAndPrefixMappings_coverTheirPathsOnly() {
        assertTrue(ServletWebServerMount.servletMaps(mapping("/charts"), "/charts"));
        assertTrue(ServletWebServerMount.servletMaps(mapping("/ws/*"), "/ws/charts"));
        assertTrue(ServletWebServerMount.servletMaps(mapping("/ws/*"), "/ws"));
        assertFalse(ServletWebServerMount.servletMaps(mapping("/ws/*"), "/wsx"));
        assertFalse(ServletWebServerMount.servletMaps(mapping("/hello", "/api/*"), "/charts"));
        assertTrue(ServletWebServerMount.servletMaps(mapping("*.ws"), "/charts.ws"));
    }

    @Test
    void noServlet_coversNothing() {
        assertFalse(ServletWebServerMount.servletMaps(mapping(), "/charts"));
    }
}
