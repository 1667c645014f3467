"""What answer support should say of the demo: the sessions whose answer holds a sentence that
nothing in their trace backs (their own steps and their sub-sessions'), each read by hand against
the steps' texts. Most are the generated sessions whose Observations and step results say only
"Result of web-search: facts about X" or "Done: Step 1"; the rest name facts (breweries, years, a
height, a country) no step holds. An agent whose tool ran a GraphRAG sub-session is backed by
that sub-session's answer, as its Observation would be: where that answer is itself unbacked,
the sub-session is the one listed."""

from __future__ import annotations

UNSUPPORTED = {
    # generated sessions: their steps hold no facts
    "urn:trustgraph:agent:1a4f44f9-a651-4445-b9f3-635cf88c422b": 1,
    "urn:trustgraph:agent:4787f93b-ca44-4b86-8726-e25cfd56a926": 1,
    "urn:trustgraph:agent:6513270e-269e-4d37-b2a7-4de452e6b438": 1,
    "urn:trustgraph:agent:6b0a18e8-830e-47bc-9e39-8f1012bd4ace": 1,
    "urn:trustgraph:agent:9aea6429-b149-4e24-b192-b70442594052": 1,
    "urn:trustgraph:agent:ca04c79f-6f15-46ad-adb3-997fe39639be": 1,
    "urn:trustgraph:agent:e8e25d94-0ed9-4475-9531-985d5d9dc9f8": 1,
    "urn:trustgraph:agent:ec3b9605-4274-43eb-ad84-e91ef132bf2d": 1,
    "urn:trustgraph:agent:62c33a4f-b774-4b52-88db-40af72158370": 1,  # 26 steps, none with the height
    "urn:trustgraph:docrag:8d116ece-1738-47d9-bd9c-172411e20b8f": 1,
    "urn:trustgraph:question:332dd331-3a0b-4965-8da6-c6fdbd685167": 1,
    # a sub-agent that answered directly: no step at all
    "urn:trustgraph:agent:4e9cb8c5-f64b-4709-b868-26a51539b6c8": 1,
    # six breweries named, two or three in the selected edges
    "urn:trustgraph:agent:892f902b-d23f-4824-928b-2f330c5c7fd0": 1,
    "urn:trustgraph:question:83a4e629-3080-4889-ba61-97748d118e37": 1,
    "urn:trustgraph:question:95e60af5-93bd-44cf-8fd6-30f1f29d0da9": 1,
    "urn:trustgraph:question:b153d69c-3e01-4aa6-9949-8ac4482cc78e": 1,
    "urn:trustgraph:question:f10637ce-81fc-469e-ba60-9683ceaf4915": 1,
    # earthquakes and migrations: no selected edge says so
    "urn:trustgraph:question:6ea330a1-a66d-48b5-91a4-c01ea887ae22": 1,
    # 15,000 years: no chunk says so
    "urn:trustgraph:question:c9d22950-eb25-48a1-bc2e-6a591ce3bc0c": 1,
    # "Paris is the capital of France": the edges say "france see also capital city", no step names Paris
    "urn:trustgraph:question:1fb17c23-90c1-42cf-93ac-94af0f21ddb6": 1,
    # "it lies in Siberia, Russia": the GraphRAG edges say Siberia, no step says Russia
    "urn:trustgraph:agent:16afcc42-a99e-4002-84ee-8abc7c0d5c86": 1,
    # "a third of that is about 547 metres", "the calculator failed": the observation has neither
    "urn:trustgraph:agent:fda01076-05c7-49ae-b2c8-e06e75031b24": 2,
}
