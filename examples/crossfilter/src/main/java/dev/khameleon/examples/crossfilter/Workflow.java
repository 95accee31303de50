package dev.khameleon.examples.crossfilter;

import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * One recorded session of the crossfilter benchmark (one participant, one task): its brush
 * events in time order, and what follows from them: the brushes in force after each event and
 * where the active view changes. Immutable.
 *
 * @param name   the file's name without {@code _workflow.json.gz}
 * @param events brush events in time order
 */
public record Workflow(String name, List<BrushEvent> events) {
    /** Copies the events. */
    public Workflow {
        events = List.copyOf(events);
    }

    /**
     * The brushes in force right after each event (index-aligned with {@link #events()}): every
     * view keeps the last brush set on it, the benchmark's crossfilter semantics.
     */
    public List<Filters> filtersAfter() {
        List<Filters> out = new ArrayList<>(events.size());
        Filters f = Filters.none();
        for (BrushEvent e : events) {
            f = f.with(e.view(), e.from(), e.to());
            out.add(f);
        }
        return Collections.unmodifiableList(out);
    }

    /**
     * Whether event {@code i} makes its view the active one: the first event, or one on another
     * view than the event before it. Every other event is a brush update within the view.
     */
    public boolean isViewSwitch(int i) {
        return i == 0 || events.get(i).view() != events.get(i - 1).view();
    }

    /** Number of events that make their view active (see {@link #isViewSwitch}). */
    public int viewSwitches() {
        int n = 0;
        for (int i = 0; i < events.size(); i++) {
            if (isViewSwitch(i)) {
                n++;
            }
        }
        return n;
    }

    /** Number of brush events on each view. */
    public Map<View, Integer> eventsPerView() {
        Map<View, Integer> out = new EnumMap<>(View.class);
        for (BrushEvent e : events) {
            out.merge(e.view(), 1, Integer::sum);
        }
        return Collections.unmodifiableMap(out);
    }
}
