// The official A2A JS SDK (@a2a-js/sdk 1.3.0) as a second judge of `carnet serve-a2a`: its
// ClientFactory resolves the card, then, over JSON-RPC and over HTTP+JSON, sends a message,
// streams a second one in the same context (the skill the first loaded is still loaded),
// gets, lists, subscribes and cancels. Answers are the SDK's own types (ts-proto, parsed
// with fromJSON). Started by tests/a2a/run.sh with the server's URL.

import {
  CancelTaskRequest,
  GetTaskRequest,
  ListTasksRequest,
  SendMessageRequest,
  SubscribeToTaskRequest,
  TaskState,
} from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions } from "@a2a-js/sdk/client";

const url = process.argv[2];
let checks = 0;
function check(condition, what) {
  if (!condition) {
    throw new Error(`FAILED: ${what}`);
  }
  checks += 1;
}

let counter = 0;
function send(text, extra = {}) {
  counter += 1;
  return SendMessageRequest.fromJSON({
    message: { messageId: `js-${counter}`, role: "ROLE_USER", parts: [{ text }], ...extra.message },
    ...(extra.configuration ? { configuration: extra.configuration } : {}),
  });
}

function carnetMeta(object) {
  return (object.metadata ?? {}).carnet ?? {};
}

async function collect(stream) {
  const events = [];
  for await (const event of stream) {
    events.push(event);
  }
  return events;
}

async function round(binding) {
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { preferredTransports: [binding] }),
  );
  const client = await factory.createFromUrl(url);

  const first = await client.sendMessage(send("hello"));
  const task = first.$case === "task" ? first.value : first;
  check(task.status.state === TaskState.TASK_STATE_COMPLETED, `${binding}: completed (${JSON.stringify(task.status)})`);
  check(task.artifacts[0].parts[0].content.value === "Hello! greet is loaded.", `${binding}: the answer as an artifact`);
  check(JSON.stringify(carnetMeta(task).loadedSkills) === '["greet"]', `${binding}: greet loaded`);

  const events = await collect(client.sendMessageStream(send("and again", { message: { contextId: task.contextId } })));
  const kinds = events.map((e) => e.payload?.$case);
  check(kinds[0] === "task", `${binding}: the stream starts with the task (${kinds})`);
  check(kinds.includes("artifactUpdate"), `${binding}: an artifact update (${kinds})`);
  const last = events[events.length - 1].payload;
  check(last.$case === "statusUpdate" && last.value.status.state === TaskState.TASK_STATE_COMPLETED, `${binding}: ends completed`);
  check(JSON.stringify(carnetMeta(last.value).loadedSkills) === '["greet"]', `${binding}: the skill is still loaded`);
  const secondId = events[0].payload.value.id;

  const got = await client.getTask(GetTaskRequest.fromJSON({ id: secondId, historyLength: 1 }));
  check(got.history.length === 1, `${binding}: historyLength`);
  const page = await client.listTasks(ListTasksRequest.fromJSON({ contextId: task.contextId, pageSize: 1 }));
  check(page.totalSize === 2 && page.tasks.length === 1 && page.nextPageToken !== "", `${binding}: a first page`);
  const rest = await client.listTasks(
    ListTasksRequest.fromJSON({ contextId: task.contextId, pageSize: 1, pageToken: page.nextPageToken }),
  );
  check(rest.tasks[0].id === task.id && rest.nextPageToken === "", `${binding}: the last page`);

  const slowAnswer = await client.sendMessage(send("wait for it", { configuration: { returnImmediately: true } }));
  const slow = slowAnswer.$case === "task" ? slowAnswer.value : slowAnswer;
  check(
    [TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING].includes(slow.status.state),
    `${binding}: returned at once`,
  );
  // Canceled once the subscription has its first event, so it sees the cancel.
  let subscribed;
  const firstEvent = new Promise((resolve) => {
    subscribed = resolve;
  });
  const subscription = (async () => {
    const seen = [];
    for await (const event of client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: slow.id }))) {
      seen.push(event);
      subscribed();
    }
    return seen;
  })();
  await firstEvent;
  const canceled = await client.cancelTask(CancelTaskRequest.fromJSON({ id: slow.id }));
  check(canceled.status.state === TaskState.TASK_STATE_CANCELED, `${binding}: canceled`);
  const seen = await subscription;
  check(seen[0].payload.$case === "task", `${binding}: the subscription starts with the task`);
  check(
    seen[seen.length - 1].payload.value.status.state === TaskState.TASK_STATE_CANCELED,
    `${binding}: the subscription sees the cancel`,
  );
  let refused = null;
  try {
    await client.getTask(GetTaskRequest.fromJSON({ id: "no-such-task" }));
  } catch (error) {
    refused = error;
  }
  check(refused && /TaskNotFound|not found/i.test(`${refused.name} ${refused.message}`), `${binding}: unknown task (${refused})`);
  console.log(`ok: ${binding} (JS SDK): card, send, stream in the same context, get, list, subscribe, cancel`);
}

await round("JSONRPC");
await round("HTTP+JSON");
console.log(`a2a e2e (JS): ${checks} checks passed`);
