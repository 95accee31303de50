package dev.khameleon.examples.crossfilter;

import com.fasterxml.jackson.databind.JsonNode;
import dev.khameleon.core.Bindings;
import dev.khameleon.core.spi.RequestScope;

import java.util.Iterator;
import java.util.Map;

/**
 * The live crossfilter's request scope: the client's brushes, as a JSON object from view name to
 * pixel range, e.g. {@code {"DISTANCE": [40, 120], "AIR_TIME": [0, 35]}} ({@code {}} for none; an
 * empty range is no brush). Request {@code v} (a view's index) then means the tile of view
 * {@code v} under the other views' brushes, whose content key {@link ContentKeys} assigns.
 * Thread-safe; malformed scopes are rejected with an {@link IllegalArgumentException} saying why.
 */
final class BrushScope implements RequestScope {
    private final ContentKeys keys;

    BrushScope(ContentKeys keys) {
        this.keys = keys;
    }

    @Override
    public Bindings decode(JsonNode scope) {
        Filters filters = filters(keys.views(), scope);
        Bindings.Builder b = Bindings.builder();
        for (View v : keys.views()) {
            b.bind(v.index(), keys.register(new TileKey(v, filters)));
        }
        return b.build();
    }

    /**
     * The brushes a scope names, on {@code views}.
     *
     * @throws IllegalArgumentException if it is not an object of view names to {@code [from, to]}
     *     integer pairs with {@code 0 <= from <= to <= View.PIXELS}
     */
    static Filters filters(Views views, JsonNode scope) {
        if (scope == null || !scope.isObject()) {
            throw new IllegalArgumentException("scope must be an object of view name -> [from, to], was " + scope);
        }
        Filters filters = Filters.none(views);
        for (Iterator<Map.Entry<String, JsonNode>> it = scope.properties().iterator(); it.hasNext(); ) {
            Map.Entry<String, JsonNode> e = it.next();
            View view = view(views, e.getKey());
            JsonNode range = e.getValue();
            if (!range.isArray() || range.size() != 2 || !range.get(0).isInt() || !range.get(1).isInt()) {
                throw new IllegalArgumentException("brush of " + view + " must be [from, to] in pixels, was " + range);
            }
            filters = filters.with(view, range.get(0).intValue(), range.get(1).intValue());
        }
        return filters;
    }

    /**
     * The view of {@code views} named {@code name}.
     *
     * @throws IllegalArgumentException if there is none, quoting (at most 40 characters of) the name
     */
    static View view(Views views, String name) {
        for (View v : views) {
            if (v.name().equals(name)) {
                return v;
            }
        }
        throw new IllegalArgumentException("unknown view " + (name.length() > 40 ? name.substring(0, 40) + "..." : name));
    }
}
