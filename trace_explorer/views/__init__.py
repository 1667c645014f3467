"""What a person looks at, built from the model: the timeline, the DAG and its folding, step
labels and colours, and a session as text or JSON. No I/O and no Streamlit."""
