import { defineConfig } from "drizzle-kit";

export default defineConfig({
  dialect: "sqlite",
  schema: ["./src/db/schema.ts", "./src/db/schema-groups.ts", "./src/db/schema-people.ts"],
  out: "./src/db/migrations",
});
