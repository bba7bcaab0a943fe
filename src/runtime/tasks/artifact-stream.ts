/**
 * An artifact streamed in chunks whose number is not known in advance (a model's answer): `write()` each
 * chunk as it comes, `end()` when there is no more. The protocol marks the last chunk of an artifact
 * (`lastChunk: true` on its TaskArtifactUpdateEvent, 1.0.1 §4.2.2; `append: true` on every chunk after
 * the first), which a writer of unknown length cannot know at the time of a write: the stream holds each
 * chunk back until the next one arrives (or `end()`), so that the last one goes out marked, and no empty
 * closing chunk is ever sent.
 */
import { newId } from "../profile.js";

/** What `artifactStream` publishes through: the publisher's `artifact` and `textPart`. */
export interface ArtifactSink<TPart> {
  artifact(artifact: { artifactId: string; parts: TPart[]; name?: string; description?: string }, options: { append: boolean; lastChunk: boolean }): void;
  textPart(text: string): TPart;
}

/** The artifact's fields besides its parts (each optional; the id is made when absent). */
export interface ArtifactStreamInit {
  readonly artifactId?: string;
  readonly name?: string;
  readonly description?: string;
}

/** One artifact written chunk by chunk (`events.artifactStream()`). */
export interface ArtifactStream<TPart = unknown> {
  readonly artifactId: string;
  /** Adds a chunk (a text or parts); it goes out when the next one is written or the stream ends. */
  write(chunk: string | TPart[]): void;
  /**
   * Sends the last chunk (`chunk` if given, else the one held back) marked `lastChunk: true`. A stream
   * nothing was written to sends nothing. Writes after `end()` are ignored.
   */
  end(chunk?: string | TPart[]): void;
  /** Whether `end()` was called. */
  readonly ended: boolean;
}

export function artifactStream<TPart>(sink: ArtifactSink<TPart>, init: ArtifactStreamInit = {}): ArtifactStream<TPart> {
  const artifactId = init.artifactId ?? newId();
  let held: TPart[] | undefined;
  let sent = false;
  let ended = false;
  const send = (parts: TPart[], lastChunk: boolean): void => {
    // The first chunk carries the artifact's name and description; the next ones only append parts.
    const artifact = sent ? { artifactId, parts } : { artifactId, parts, ...(init.name !== undefined ? { name: init.name } : {}), ...(init.description !== undefined ? { description: init.description } : {}) };
    sink.artifact(artifact, { append: sent, lastChunk });
    sent = true;
  };
  const partsOf = (chunk: string | TPart[]): TPart[] => (typeof chunk === "string" ? [sink.textPart(chunk)] : chunk);
  return {
    artifactId,
    get ended() {
      return ended;
    },
    write(chunk) {
      if (ended) return;
      if (held) send(held, false);
      held = partsOf(chunk);
    },
    end(chunk) {
      if (ended) return;
      if (chunk !== undefined) this.write(chunk);
      ended = true;
      if (held) send(held, true);
      held = undefined;
    },
  };
}
