import WebSocketCore
print("demo: to be written")
