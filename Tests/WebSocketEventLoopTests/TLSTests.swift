#if os(Linux)
import Glibc
import Testing
import WebSocketCore
import WebSocketTransport
import WebSocketPOSIX
import WebSocketTLS
import TLSTestSupport
import TransportTestSupport
@testable import WebSocketEventLoop

@Suite struct EventLoopTLSTests {
    @Test func servesWSSToVerifyingClientsOnBothFaces() async throws {
        let pki = TestPKI.shared
        var serving = TransportOptions()
        serving.tls = try TLSContext(.server(certificateChain: pki.server.certificate, privateKey: pki.server.key))
        var trusting = TLSConfiguration.client()
        trusting.trustRoots = .only([pki.ca.certificate])
        var options = clientOptions()
        options.tls = try TLSContext(trusting)
        let handlerServer = try echoServer(options: serving)
        let asyncServer = try EventLoopServer(configuration: clientConfiguration(), options: serving)
        let task = Task(executorPreference: asyncServer.loops[0]) {
            await asyncServer.run { socket in
                do { for try await message in socket.messages { try await socket.send(message) } } catch {}
            }
        }
        let clientOptions = options
        for port in [handlerServer.port, asyncServer.port] {
            let failures = try await offPool {
                try onThreads(8) { index -> String? in
                    do throws(WebSocketError) {
                        let client = try BlockingWebSocket.connect(to: "wss://localhost:\(port)/", configuration: clientConfiguration(),
                                                                   options: clientOptions)
                        for message in [WebSocketMessage.text("tls \(index)"), .binary(pattern(100_000))] {
                            try client.send(message)
                            guard try client.receive() == message else { return "wrong echo" }
                        }
                        return try client.close().wasClean ? nil : "not clean"
                    } catch {
                        return "\(error)"
                    }
                }
            }
            #expect(failures.compactMap { $0 } == [])
        }
        // A client that does not trust the server's CA is refused by TLS, and the server carries on.
        var untrusting = clientOptions
        untrusting.tls = try TLSContext(.client())
        let untrustingOptions = untrusting
        let refusal = try await offPool { () -> WebSocketError? in
            do throws(WebSocketError) {
                _ = try BlockingWebSocket.connect(to: "wss://localhost:\(handlerServer.port)/", options: untrustingOptions)
                return nil
            } catch {
                return error
            }
        }
        guard case .tls? = refusal else { throw TestFailure("an untrusted server: \(String(describing: refusal))") }
        #expect(handlerServer.waitUntilIdle(timeout: .seconds(30)))
        asyncServer.stop()
        await task.value
    }
}
#endif
