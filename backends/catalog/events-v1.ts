// events/v1: Event, a short-lived note that something happened to an object, with series support.
import { f, pkg, required, t } from "./model.ts";

export const EVENTS_V1 = pkg("events/v1", "k8s.io.api.events.v1", {
  Event: t(
    "A report that something happened to an object, usually a change of state. Events expire after a while and are best-effort information; do not build logic on their reasons or timing.",
    {
      metadata: f(1, "meta/v1.ObjectMeta", "The object's metadata: name, namespace, labels and so on.", {
        omitEmpty: false,
      }),
      eventTime: f(2, "microTime", "When the event was first seen.", { ...required, omitEmpty: false }),
      series: f(
        3,
        "EventSeries",
        "Counts and timing when the event keeps recurring; absent for a one-off event.",
        { pointer: true },
      ),
      reportingController: f(
        4,
        "string",
        'Name of the component that emitted the event, such as "example.com/my-controller"; needed on new events.',
      ),
      reportingInstance: f(
        5,
        "string",
        "Which instance of the reporting component emitted the event; needed on new events, at most 128 characters.",
      ),
      action: f(
        6,
        "string",
        "The machine-readable action that was taken or failed on the regarding object; needed on new events, at most 128 characters.",
      ),
      reason: f(
        7,
        "string",
        "Why the action happened, for people to read; needed on new events, at most 128 characters.",
      ),
      regarding: f(
        8,
        "core/v1.ObjectReference",
        "The object the event is about, typically one the reporting controller manages.",
      ),
      related: f(
        9,
        "core/v1.ObjectReference",
        "A second object involved, for example one created or deleted because of the regarding object.",
        { pointer: true },
      ),
      note: f(
        10,
        "string",
        "A readable account of what happened; meant to stay under 1 kB, though readers should cope with up to 64 kB.",
      ),
      type: f(11, "string", "Kind of event, Normal or Warning (more may be added); needed on new events."),
      deprecatedSource: f(
        12,
        "core/v1.EventSource",
        "Reporting component, kept for compatibility with core/v1 events.",
      ),
      deprecatedFirstTimestamp: f(
        13,
        "time",
        "First occurrence, kept for compatibility with core/v1 events.",
      ),
      deprecatedLastTimestamp: f(
        14,
        "time",
        "Latest occurrence, kept for compatibility with core/v1 events.",
      ),
      deprecatedCount: f(15, "int32", "Number of occurrences, kept for compatibility with core/v1 events."),
    },
  ),
  EventSeries: t(
    "Bookkeeping for an event that keeps happening over time; reporters decide how often to refresh it.",
    {
      count: f(1, "int32", "How many times the event has occurred as of the last update.", {
        ...required,
        omitEmpty: false,
      }),
      lastObservedTime: f(
        2,
        "microTime",
        "When the most recent occurrence was seen, as of the last update.",
        { ...required, omitEmpty: false },
      ),
    },
  ),
});
