package dev.khameleon.examples.crossfilter;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One recorded session of the crossfilter benchmark (one participant, one task): its brush
 * events in time order, and what follows from them: the brushes in force after each event and
 * where the active view changes. Immutable.
 *
 * @param name   the file's name without {@code _workflow.json.gz}
 * @param events brush events in time order
 */
public record Workflow(String name, List<BrushEvent> events) {
    /**
     * Copies the events.
     *
     * @throws IllegalArgumentException if the events are on views of different {@link Views}
     */
    public Workflow {
        events = List.copyOf(events);
        for (BrushEvent e : events) {
            if (e.view().views() != events.get(0).view().views()) {
                throw new IllegalArgumentException(name + ": events on views of " + events.get(0).view().views()
                        + " and " + e.view().views());
            }
        }
    }

    /**
     * This session replayed on the views of another configuration, by position: an event on the
     * view at index {@code i} becomes the same event (time, pixels, brush id) on {@code views}'
     * view {@code i}; events on positions {@code views} does not have are dropped. Brushes are
     * pixel ranges, so they mean the same part of every brush axis.
     */
    public Workflow onto(Views views) {
        List<BrushEvent> out = new ArrayList<>(events.size());
        for (BrushEvent e : events) {
            if (e.view().index() < views.size()) {
                out.add(new BrushEvent(e.timeMs(), views.get(e.view().index()), e.from(), e.to(), e.brushId()));
            }
        }
        return new Workflow(name, out);
    }

    /**
     * The brushes in force right after each event (index-aligned with {@link #events()}): every
     * view keeps the last brush set on it, the benchmark's crossfilter semantics.
     */
    public List<Filters> filtersAfter() {
        List<Filters> out = new ArrayList<>(events.size());
        Filters f = events.isEmpty() ? null : Filters.none(events.get(0).view().views());
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

    /** Number of brush events on each view, in view order. */
    public Map<View, Integer> eventsPerView() {
        Map<View, Integer> out = new TreeMap<>(Comparator.comparingInt(View::index));
        for (BrushEvent e : events) {
            out.merge(e.view(), 1, Integer::sum);
        }
        return Collections.unmodifiableMap(out);
    }
}
