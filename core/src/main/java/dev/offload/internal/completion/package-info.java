/**
 * A device's completion engine, behind one door, {@link Completions}: the completion
 * thread that watches sessions' streams and events, the futures it settles without
 * running a dependent stage, the asynchronous close of a session and the rules by which
 * its joiners help, the waits of a session's caller, asynchronous deadlines and the event
 * pool. {@link CompletionTuning} holds its numbers. Not API: anything here may change in
 * any release.
 */
@NullMarked
package dev.offload.internal.completion;

import org.jspecify.annotations.NullMarked;
