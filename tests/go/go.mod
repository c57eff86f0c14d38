module onyx/tests/go

go 1.22

require github.com/yalue/onnxruntime_go v1.27.0
