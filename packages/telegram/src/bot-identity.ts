/** Who the bot is on Telegram, from getMe: the id recognises replies to it, the username its mentions and commands. */
export interface BotIdentity {
  id: number;
  username: string;
}
