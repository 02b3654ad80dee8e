export { createSlackAdapter, SlackAdapter, SLACK_TEXT_LIMIT, SLACK_EVENTS_PATH, DEFAULT_MAX_ATTACHMENT_BYTES, type SlackAdapterDeps } from "./slack-adapter.js";
export { markdownToMrkdwn, plainSlackText } from "./mrkdwn.js";
export { verifySlackRequest, slackRequestSignature, MAX_REQUEST_AGE_SECONDS, type RefusalReason } from "./request-signature.js";
export { webApiUrlFor } from "./slack-api-url.js";
export { SLACK_COMMANDS_PATH } from "./slash-command-route.js";
export { SLACK_INTERACTIVITY_PATH } from "./interactivity-route.js";
