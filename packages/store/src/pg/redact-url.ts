/** A database URL fit for logs and error messages: the password (and a query's password option) replaced. */
export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password !== "") parsed.password = "***";
    for (const key of [...parsed.searchParams.keys()]) {
      if (/pass|secret|key/i.test(key)) parsed.searchParams.set(key, "***");
    }
    return parsed.toString();
  } catch {
    return "(an unreadable database URL)";
  }
}
