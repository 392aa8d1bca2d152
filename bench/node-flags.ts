// Node's flags as `npm start` and the image run the server (package.json, Dockerfile): the bench
// runs with them (bench/index.ts) and gives them to the servers it starts as children. A module of
// its own, so the bench's parent process can read it without loading the app.
export const SERVER_NODE_FLAGS = ['--max-semi-space-size=4']
