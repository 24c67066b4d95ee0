/**
 * What the model is told when the user pauses or resumes memory in a session: one short line each, given once, and
 * the answer the memory tools give while it is paused. Pure text.
 */

/** Told once, on the first step with user input after the user paused memory in the session. */
export const PAUSED_LINE =
  'Memory is paused in this session by the user: nothing is recalled or saved, and the memory tools are off, until they resume it.'

/** Told once, on the first step with user input after the user resumed memory. */
export const RESUMED_LINE = 'Memory is on again in this session: facts are recalled and saved as before.'

/** What memory_write and memory_search answer while memory is paused. */
export const PAUSED_TOOL_ANSWER =
  'memory is paused in this session by the user; nothing is stored or searched until they resume it.'

/** The notice's one-line summary the host shows for each (at most 120 characters). */
export const PAUSED_SUMMARY = 'Memory paused in this session'
export const RESUMED_SUMMARY = 'Memory on again in this session'
