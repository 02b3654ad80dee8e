import { describe, expect, it } from "vitest";
import { detectSecret } from "./secret-guard.js";

describe("detectSecret", () => {
  it.each([
    ["an OpenAI key", "key is sk-proj-AbCdEf1234567890xyz"],
    ["a GitHub token", "use ghp_abcdefghijklmnopqrstuvwxyz012345 for CI"],
    ["an AWS access key id", "AKIAABCDEFGHIJKLMNOP"],
    ["a bearer header", "Authorization: Bearer abc123def456ghi789"],
    ["a Telegram bot token", "bot 123456789:AAEabcdefghijklmnopqrstuvwxyz0123456"],
  ])("flags %s through the shared redactor", (_label, text) => {
    expect(detectSecret(text)).toBe("credential shape");
  });

  it.each([
    "password: hunter2",
    "Password = 'correct horse'",
    "db passwd:s3cr3t!",
    "API key: 9f8e7d6c5b4a",
    "client_secret=abcdef",
    "access token: xyz987",
    "token = abcdefghijkl1234",
  ])("flags the labelled credential %s", (text) => {
    expect(detectSecret(text)).toBe("labelled credential");
  });

  it("flags private keys, JWTs and passwords inside URLs", () => {
    expect(detectSecret("-----BEGIN OPENSSH PRIVATE KEY-----\nb3Blbn...")).toBe("private key");
    expect(detectSecret("session eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U")).toBe(
      "json web token",
    );
    expect(detectSecret("mongodb+srv://app:pa55word@cluster0.example.net")).toBe("url credentials");
  });

  it.each([
    "The user prefers a password manager (1Password)",
    "Passwords are kept in the team vault; never ask for them",
    "The OpenAI API key is configured in ~/.hermes/.env",
    "max token: 4096",
    "Token limits matter for long documents",
    "Clone with ssh://git@github.com/org/repo.git",
    "Deploy key rotation happens monthly",
    "secret santa is on Friday",
  ])("lets ordinary prose through: %s", (text) => {
    expect(detectSecret(text)).toBeUndefined();
  });
});
