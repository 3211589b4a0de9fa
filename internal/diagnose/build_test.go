package diagnose

import "github.com/clusterlens/clusterlens/internal/model"

// appBuilder makes small applications by hand. Times are seconds after an
// epoch origin; the model stores milliseconds.
type appBuilder struct {
	app    *model.App
	taskID int64
}

const origin = 1_700_000_000_000

func ms(sec float64) int64 { return origin + int64(sec*1000) }

// newApp starts an application of the given length with executors of cores each.
func newApp(lengthSec float64, executors, cores int) *appBuilder {
	a := &model.App{ID: "app-test", Engine: model.Spark, Start: ms(0), End: ms(lengthSec), Complete: true, Hosts: []string{"", "h1"}}
	for i := 0; i < executors; i++ {
		a.Executors = append(a.Executors, &model.Executor{ID: string(rune('1' + i)), Host: "h1", Cores: int32(cores), Added: ms(0)})
	}
	return &appBuilder{app: a}
}

// job adds a job with one stage whose tasks launch at start, in waves over
// the given slots, with the given durations (seconds).
func (b *appBuilder) job(id int32, parents []int32, start float64, slots int, durs ...float64) *appBuilder {
	st := &model.Stage{ID: id, ParentIDs: parents, JobIDs: []int32{id}, Submitted: ms(start), Status: model.StageComplete}
	free := make([]float64, slots)
	for i := range free {
		free[i] = start
	}
	end := start
	for _, d := range durs {
		k := 0
		for i := range free {
			if free[i] < free[k] {
				k = i
			}
		}
		launch := free[k]
		free[k] = launch + d
		end = max(end, free[k])
		b.taskID++
		st.AddTask(model.Task{ID: b.taskID, Launch: ms(launch), Finish: ms(launch + d), Status: model.TaskSuccess, Host: 1}, &model.TaskMetrics{})
	}
	st.Completed = ms(end)
	b.app.Stages = append(b.app.Stages, st)
	b.app.Jobs = append(b.app.Jobs, &model.Job{ID: id, Submitted: ms(start), Completed: ms(end), Status: model.JobSucceeded, StageIDs: []int32{id}})
	return b
}

// repeat returns n copies of d.
func repeat(n int, d float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = d
	}
	return out
}
