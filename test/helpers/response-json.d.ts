// Tests read JSON bodies whose shape they assert on; `any` keeps those assertions readable.
declare global {
  interface Response {
    json(): Promise<any>;
  }
}
export {};
