/** Between two steps' texts (say "Let me look that up." and the answer after the tool ran). */
const STEP_SEPARATOR = "\n\n";

/**
 * Turns a run's stream updates — each the whole text of the current step so far, a new step starting again from
 * empty — into the deltas of one growing text, which is all a chat completion stream can express (nothing sent can
 * be taken back). Steps are joined by a blank line.
 */
export class StreamedText {
  private step = "";
  private boundary = false;
  private emitted = false;

  /** The text to send for an update (empty when nothing new). */
  update(stepText: string): string {
    if (!stepText.startsWith(this.step)) {
      this.boundary = true;
      this.step = "";
    }
    const delta = stepText.slice(this.step.length);
    this.step = stepText;
    return this.emit(delta);
  }

  /**
   * What is left to send of the final reply: the rest of the current step's text when the reply continues it, else
   * the whole reply as one more step.
   */
  finish(finalText: string): string {
    if (finalText.startsWith(this.step)) {
      const rest = finalText.slice(this.step.length);
      this.step = finalText;
      return this.emit(rest);
    }
    this.boundary = true;
    this.step = finalText;
    return this.emit(finalText);
  }

  private emit(delta: string): string {
    if (delta === "") return "";
    const text = this.boundary && this.emitted ? STEP_SEPARATOR + delta : delta;
    this.boundary = false;
    this.emitted = true;
    return text;
  }
}
