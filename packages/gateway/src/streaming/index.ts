export { parseStreamUpdate, type StreamTarget, type StreamUpdate } from "./stream-update.js";
export { createStreamPublisher, type StreamCallbacks, type StreamPublisher, type StreamPublisherOptions } from "./stream-publisher.js";
export { STREAM_CHANNEL, StreamListener, parseStreamMessage, publishStreamUpdate } from "./stream-channel.js";
export { StreamPresenter, type StreamPartsRecorder, type StreamPresenterOptions } from "./stream-presenter.js";
