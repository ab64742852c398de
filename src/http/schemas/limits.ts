/** The numeric limits of the interface's "Limits" table that body validation enforces. */

export const CONTENT_MAX_CHARS = 200_000;
export const MESSAGES_MAX = 200;
export const LAST_USER_ATTACHMENTS_MAX = 20;
/** Inline (`input_file`) bytes per run, decoded: 5 MB. */
export const INLINE_ATTACHMENT_BYTES_MAX = 5 * 1024 * 1024;
export const OUTPUT_SCHEMA_BYTES_MAX = 32 * 1024;
export const METADATA_VALUE_MAX_CHARS = 256;
export const METADATA_KEY_PATTERN = /^[A-Za-z0-9._-]{1,64}$/;
export const OUTPUT_SCHEMA_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,64}$/;
export const TOOL_BUDGETS_MAX = 32;
/** `plan` values the server clamps (the spec says clamped, not refused). */
export const PLAN_STEPS_MAX = 100;
export const PLAN_STEP_MAX_CHARS = 500;
export const PLAN_BRIEF_MAX_CHARS = 300;
