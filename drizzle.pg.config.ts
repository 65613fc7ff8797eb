import { defineConfig } from "drizzle-kit";

/** Team mode's PostgreSQL migrations; `drizzle.config.ts` has the embedded SQLite's. */
export default defineConfig({
  dialect: "postgresql",
  schema: ["./src/db/schema-pg.ts", "./src/db/schema-pg-groups.ts", "./src/db/schema-pg-people.ts"],
  out: "./src/db/migrations-pg",
});
