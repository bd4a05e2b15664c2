"""Using the project as a library: a tool of your own (`examples.exchange_rates`), and an agent
that offers it next to the built-in ones (`examples/exchange_rates_agent.py`)."""
